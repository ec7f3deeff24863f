"""Mapping helpers every importer shares: messages, tool calls, errors, events, the body.

Importers differ in how they find facts; once found, the facts become trace events here, so
every format yields the same shapes (OpenAI-style chat messages, `{id, name, arguments}` tool
calls, `{type, message}` errors) and feeds the same completeness check.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from corpus_tool.ingest.native import parse_error

MISSING: Any = object()
"""A tool result the source did not hold (distinct from a recorded `null`)."""

_PLACEHOLDERS = {"", "<not specified>", "None", "null"}


def loads_maybe(value: Any) -> Any:
    """A JSON document held in a string, parsed; anything else as it came."""
    if isinstance(value, str) and value[:1] in ("{", "[", '"'):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def arguments(raw: Any) -> dict[str, Any]:
    """Tool arguments as an object: JSON strings parsed, a bare value kept under `input`."""
    value = loads_maybe(raw) if isinstance(raw, str) else raw
    if isinstance(value, str) and value.startswith("{"):
        value = _python_literal(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    if isinstance(value, dict):
        return value
    return {"input": value}


def _python_literal(text: str) -> Any:
    """LangChain logs tool input as `str(dict)`; literal_eval reads literals only, never code."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def opt_id(value: Any) -> str | None:
    """An id as a string; placeholders some exporters write (`<not specified>`) as None."""
    if isinstance(value, list):  # agent_framework writes [run_id, call_id]: the call id is last
        value = value[-1] if value else None
    if value is None or str(value) in _PLACEHOLDERS:
        return None
    return str(value)


def error(raw: Any, default_type: str = "Error") -> dict[str, str]:
    """An error as `{type, message}` (strings `"Type: message"`, dicts, exceptions' text)."""
    if isinstance(raw, dict) and "type" not in raw and ("message" in raw or "data" in raw):
        return {"type": default_type, "message": str(raw.get("message") or raw.get("data") or "")}
    parsed = parse_error(raw)
    if parsed["type"] == "Error" and default_type != "Error":
        parsed["type"] = default_type
    return parsed


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
    function = raw.get("function") if isinstance(raw.get("function"), dict) else {}
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
        raw = {"type": {"human": "human", "ai": "ai", "system": "system", "tool": "tool"}.get(kind, kind), **raw["kwargs"]}
    if isinstance(raw.get("parts"), list):
        return _from_parts(raw)
    role = raw.get("role") or _LANGCHAIN_ROLES.get(str(raw.get("type")), None)
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
    return {"role": "tool", "tool_call_id": opt_id(raw.get("call_id")), "content": raw.get("output")}


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
    return [message(m) for m in raw] if isinstance(raw, list) else []


def iso_from_ns(nanos: Any) -> str | None:
    """Unix nanoseconds (int or numeric string) as an ISO 8601 UTC timestamp."""
    try:
        value = int(nanos)
    except (TypeError, ValueError):
        return None
    if value <= 0:
        return None
    seconds, rest = divmod(value, 1_000_000_000)
    when = datetime.fromtimestamp(seconds, tz=timezone.utc).replace(microsecond=rest // 1000)
    return when.isoformat().replace("+00:00", "Z")


def parse_time_key(value: Any) -> float:
    """An ISO 8601 timestamp as epoch seconds for sorting (0.0 when absent or unreadable)."""
    if not isinstance(value, str):
        return 0.0
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def iso_from_epoch(value: Any) -> str | None:
    """Epoch seconds, milliseconds or microseconds (guessed by magnitude), or ISO text."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return value
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        return None
    scale = 1e9 if value > 1e17 else 1e6 if value > 1e14 else 1e3 if value > 1e11 else 1.0
    return iso_from_ns(int(value / scale * 1e9))


def model_event(
    model: str | None,
    request_messages: list[dict[str, Any]],
    content: str | None,
    calls: list[dict[str, Any]],
    **more: Any,
) -> dict[str, Any]:
    """A model_call event (seq is set when the run is assembled)."""
    request: dict[str, Any] = {"messages": request_messages}
    more["temperature"] = _number(more.get("temperature"))
    for key in ("tools", "temperature", "params"):
        if more.get(key) is not None:
            request[key] = more.pop(key)
        more.pop(key, None)
    response: dict[str, Any] = {"content": content}
    if calls:
        response["tool_calls"] = calls
    if more.get("finish_reason") is not None:
        response["finish_reason"] = str(more["finish_reason"])
    more.pop("finish_reason", None)
    event: dict[str, Any] = {"type": "model_call"}
    if model:
        event["model"] = model
    event.update(request=request, response=response)
    return _with_common(event, more)


def _number(value: Any) -> float | None:
    """A temperature some exporters write as text ('0.7')."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    try:
        return float(value) if isinstance(value, str) else None
    except ValueError:
        return None


def tool_event(
    tool: str, call_id: str | None, args: dict[str, Any], result: Any, **more: Any
) -> dict[str, Any]:
    """A tool_call event: `result`, or `error` when `more` has one (never both)."""
    event: dict[str, Any] = {"type": "tool_call", "tool": tool, "call_id": call_id}
    event["arguments"] = args
    err = more.pop("error", None)
    if err is not None:
        event["error"] = err
    elif result is not MISSING:
        event["result"] = result
    return _with_common(event, more)


def error_event(err: dict[str, str], **more: Any) -> dict[str, Any]:
    """An error event raised outside a tool call."""
    return _with_common({"type": "error", "error": err}, more)


def handoff_event(source: str | None, target: str, **more: Any) -> dict[str, Any]:
    """Control passed from one agent to another."""
    return _with_common({"type": "handoff", "from": source, "to": target}, more)


_COMMON = ("node", "timestamp", "duration_ms", "parent")
_BY_TYPE = {"model_call": ("usage",), "error": ("tool", "stack")}


def _with_common(event: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    for key in _COMMON + _BY_TYPE.get(event["type"], ()):
        value = more.pop(key, None)
        if value is not None:
            event[key] = value
    extra = {k: v for k, v in (more.pop("extra", None) or {}).items() if v is not None}
    extra.update({k: v for k, v in more.items() if v is not None})
    if extra:
        event["extra"] = extra
    return event


def link_ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give a requested call without id the id of the tool call that answered it.

    Some frameworks (Google ADK) assign call ids client-side: the model's request carries none,
    the tool span does. The first later call of that tool with an unclaimed id answered it.
    """
    claimed = {
        call.get("id")
        for e in events
        if e["type"] == "model_call"
        for call in e["response"].get("tool_calls") or []
    }
    _link_answers(events)
    for i, event in enumerate(events):
        if event["type"] != "model_call":
            continue
        for call in event["response"].get("tool_calls") or []:
            if call.get("id") is not None:
                continue
            answer = next(
                (
                    e
                    for e in events[i + 1 :]
                    if e["type"] == "tool_call"
                    and e["tool"] == call["name"]
                    and e.get("call_id") not in claimed
                ),
                None,
            )
            if answer is not None:
                call["id"] = answer["call_id"]
                claimed.add(answer["call_id"])
    return events


def _link_answers(events: list[dict[str, Any]]) -> None:
    """A tool call recorded without id answers the earliest open request of its name."""
    open_requests: list[dict[str, Any]] = []
    answered = {e.get("call_id") for e in events if e["type"] == "tool_call"}
    for event in events:
        if event["type"] == "model_call":
            calls = event["response"].get("tool_calls") or []
            open_requests.extend(c for c in calls if c.get("id") and c["id"] not in answered)
        elif event["type"] == "tool_call" and event.get("call_id") is None:
            match = next((r for r in open_requests if r["name"] == event["tool"]), None)
            if match is not None:
                event["call_id"] = match["id"]
                open_requests.remove(match)


def number(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events with seq 1..n in the order given, seq first for readable YAML."""
    return [{"seq": i, **e} for i, e in enumerate(events, start=1)]


def models_of(events: list[dict[str, Any]]) -> list[str]:
    """Model ids used, sorted."""
    return sorted({e["model"] for e in events if e["type"] == "model_call" and e.get("model")})


def derived_config_hash(events: list[dict[str, Any]]) -> str | None:
    """A fingerprint of the agent's configuration as the run shows it.

    Formats that record no agent version still show what configures the agent: the system
    prompt, the tools offered and the models. Their hash lets drift be reported.
    """
    system = [
        m.get("content")
        for e in events
        if e["type"] == "model_call"
        for m in e["request"]["messages"][:2]
        if isinstance(m, dict) and m.get("role") in ("system", "developer")
    ]
    tools = sorted({str(e.get("tool")) for e in events if e["type"] == "tool_call"})
    facts = {"system": system[:1], "tools": tools, "models": models_of(events)}
    if not any(facts.values()):
        return None
    blob = json.dumps(facts, sort_keys=True, ensure_ascii=False, default=str)
    return "derived-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def body(
    events: list[dict[str, Any]],
    *,
    started_at: str | None,
    agent: dict[str, Any],
    user_message: str | None,
    terminal: dict[str, Any],
    extra: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    conversation: list[Any] | None = None,
) -> dict[str, Any]:
    """A trace body; an agent without version gets a config hash derived from the run."""
    numbered = number(link_ids(events))
    facts = {k: v for k, v in agent.items() if v is not None}
    if not facts.get("version") and not facts.get("config_hash"):
        derived = derived_config_hash(numbered)
        if derived:
            facts["config_hash"] = derived
    out: dict[str, Any] = {
        "recorded": {"started_at": started_at, "agent": facts, "models": models_of(numbered)},
        "input": {
            "user_message": user_message,
            "context": context or {},
            "conversation": conversation or [],
        },
        "events": numbered,
        "terminal": terminal,
    }
    if extra:
        out["extra"] = {k: v for k, v in extra.items() if v not in (None, {}, [])}
        if not out["extra"]:
            del out["extra"]
    return out


def first_user_text(events: list[dict[str, Any]]) -> str | None:
    """The first user message the first model call was sent: the run's input."""
    for event in events:
        if event["type"] != "model_call":
            continue
        for msg in event["request"]["messages"]:
            if isinstance(msg, dict) and msg.get("role") == "user":
                return text_of(msg.get("content")) or json.dumps(msg.get("content"))
        return None
    return None


def last_answer(events: list[dict[str, Any]]) -> str | None:
    """The text of the last model answer that asked for no tool: the run's output."""
    for event in reversed(events):
        if event["type"] == "model_call" and not event["response"].get("tool_calls"):
            content = event["response"].get("content")
            return content if isinstance(content, str) else None
    return None


def terminal_from(events: list[dict[str, Any]], failed: bool, output: Any = MISSING) -> dict[str, Any]:
    """`failed` when the run errored, else `succeeded` with the last answer as output."""
    answer = last_answer(events) if output is MISSING else output
    if failed:
        return {"status": "failed", "output": answer}
    if answer is None and not events:
        return {"status": "unknown", "output": None}
    return {"status": "succeeded", "output": answer}
