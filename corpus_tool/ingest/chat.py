"""Chat messages and tool calls from any common shape, in the trace model's OpenAI style.

OpenAI chat messages, OTel GenAI `{role, parts}`, LangChain messages (plain and serialized),
and Responses API items all become `{role, content, tool_calls?, tool_call_id?, name?}`;
requested tool calls become `{id, name, arguments}`.
"""

from __future__ import annotations

from typing import Any

from corpus_tool.ingest.coerce import arguments, error, obj, opt_id, result_value
from corpus_tool.model.values import ABSENT


def text_of(content: Any) -> str | None:
    """The text of a message content: a string, or the text parts of a parts list joined."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [p for p in (_part_text(part) for part in content) if p is not None]
        return "".join(texts) if texts else None
    if isinstance(content, dict):
        return _part_text(content)
    return str(content)


def _part_text(part: Any) -> str | None:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    if kind in (None, "text", "output_text", "input_text") and isinstance(part.get("text"), str):
        return str(part["text"])
    if kind in (None, "text") and isinstance(part.get("content"), str):
        return str(part["content"])
    return None


def tool_call(raw: Any) -> dict[str, Any] | None:
    """A requested tool call from any common shape, as `{id, name, arguments}`."""
    if not isinstance(raw, dict):
        return None
    function = obj(raw.get("function"))
    name = function.get("name") or raw.get("name") or raw.get("function")
    if not isinstance(name, str) or not name:
        return None
    args = function.get("arguments", raw.get("arguments", raw.get("args", raw.get("input"))))
    call_id = raw.get("id") if raw.get("type") != "function_call" else None
    return {
        "id": opt_id(raw.get("call_id") or raw.get("tool_call_id") or call_id or raw.get("id")),
        "name": name,
        "arguments": arguments(args),
    }


def tool_calls(raw: Any) -> list[dict[str, Any]]:
    """Every recognisable tool call in a list."""
    calls = (tool_call(item) for item in raw) if isinstance(raw, list) else ()
    return [c for c in calls if c is not None]


def message(raw: Any) -> dict[str, Any]:
    """A chat message in OpenAI style `{role, content, tool_calls?, tool_call_id?, name?}`.

    Accepts OpenAI chat messages, OTel GenAI `{role, parts}`, LangChain `{type, content}`
    messages and Responses API items; what does not fit stays as it came.
    """
    if not isinstance(raw, dict):
        return {"role": "user", "content": raw}
    if raw.get("type") in _RESPONSES_ITEMS:
        return _RESPONSES_ITEMS[raw["type"]](raw)
    if raw.get("lc") and isinstance(raw.get("kwargs"), dict):  # a serialized LangChain message
        kind = str((raw.get("id") or ["Message"])[-1]).removesuffix("Message").lower()
        raw = {
            "type": {"human": "human", "ai": "ai", "system": "system", "tool": "tool"}.get(
                kind, kind
            ),
            **raw["kwargs"],
        }
    if isinstance(raw.get("parts"), list):
        return _from_parts(raw)
    role = raw.get("role") or _LANGCHAIN_ROLES.get(str(raw.get("type")))
    if role is None:
        return dict(raw)
    out: dict[str, Any] = {"role": role, "content": raw.get("content")}
    calls = raw.get("tool_calls") or (raw.get("additional_kwargs") or {}).get("tool_calls")
    if calls:
        out["tool_calls"] = tool_calls(calls)
    for key in ("tool_call_id", "name"):
        if raw.get(key) is not None:
            out[key] = raw[key]
    return out


def _function_call_item(raw: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": tool_calls([raw])}


def _function_output_item(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "tool",
        "tool_call_id": opt_id(raw.get("call_id")),
        "content": raw.get("output"),
    }


def _message_item(raw: dict[str, Any]) -> dict[str, Any]:
    return {"role": raw.get("role") or "assistant", "content": text_of(raw.get("content"))}


_RESPONSES_ITEMS = {  # OpenAI Responses API input/output items
    "function_call": _function_call_item,
    "function_call_output": _function_output_item,
    "message": _message_item,
}


def responses_output(items: Any) -> tuple[str | None, list[dict[str, Any]]]:
    """A Responses API `output` list: the message text and the function calls."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else []:
        msg = message(item)
        text = text_of(msg.get("content")) if msg.get("role") == "assistant" else None
        if text:
            texts.append(text)
        calls.extend(msg.get("tool_calls") or [])
    return ("".join(texts) if texts else None), calls


_LANGCHAIN_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def _from_parts(raw: dict[str, Any]) -> dict[str, Any]:
    """OTel GenAI message `{role, parts: [text | tool_call | tool_call_response ...]}`."""
    parts = raw["parts"]
    out: dict[str, Any] = {"role": raw.get("role") or "user", "content": text_of(parts)}
    calls = [tool_call(p) for p in parts if isinstance(p, dict) and p.get("type") == "tool_call"]
    if any(calls):
        out["tool_calls"] = [c for c in calls if c is not None]
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "tool_call_response":
            out["role"] = "tool"
            out["tool_call_id"] = opt_id(part.get("id"))
            out["content"] = part.get("response", part.get("result"))
    if raw.get("name"):
        out["name"] = raw["name"]
    return out


def messages(raw: Any) -> list[dict[str, Any]]:
    """A message list (a bare string is one user message)."""
    if isinstance(raw, str):
        return [{"role": "user", "content": raw}]
    if isinstance(raw, dict) and isinstance(raw.get("messages"), list):
        raw = raw["messages"]
    return [message(m) for item in raw for m in _split(item)] if isinstance(raw, list) else []


def _split(raw: Any) -> list[Any]:
    """An OTel GenAI message answering several tool calls, as one message per answer.

    Chat APIs take one `role: tool` message per call; GenAI tracers (pydantic-ai among them)
    put every `tool_call_response` of a turn in one message's parts. Any other parts (text)
    stay together, first.
    """
    parts = raw.get("parts") if isinstance(raw, dict) else None
    if not isinstance(parts, list):
        return [raw]
    answers = [p for p in parts if isinstance(p, dict) and p.get("type") == "tool_call_response"]
    if len(answers) < 2:
        return [raw]
    rest = [p for p in parts if not (isinstance(p, dict) and p.get("type") == "tool_call_response")]
    head = [{**raw, "parts": rest}] if rest else []
    return head + [{**raw, "parts": [answer]} for answer in answers]


def tool_message_result(value: Any) -> tuple[Any, dict[str, str] | None, str | None] | None:
    """A LangChain ToolMessage (as its tracers serialize it) as (result, error, call id).

    Tracers log a tool's output as the whole message (`{type: tool, data: {content, ...}}`,
    the `lc` constructor form, or the plain dict); the result is its content, decoded into
    a structure when it was one, and a message of status `error` is the tool's error.
    None when the value is no such message.
    """
    if isinstance(value, dict) and value.get("lc") and isinstance(value.get("kwargs"), dict):
        value = {"type": "tool", **value["kwargs"]}
    if (
        isinstance(value, dict)
        and value.get("type") == "tool"
        and isinstance(value.get("data"), dict)
    ):
        value = {**value["data"], "type": "tool"}
    if not (isinstance(value, dict) and value.get("type") == "tool" and "content" in value):
        return None
    call_id = opt_id(value.get("tool_call_id"))
    if value.get("status") == "error":
        return ABSENT, error(text_of(value["content"]) or "", "ToolError"), call_id
    return result_value(value["content"]), None, call_id
