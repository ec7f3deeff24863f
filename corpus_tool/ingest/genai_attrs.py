"""The OpenTelemetry GenAI semantic conventions (and OpenLLMetry's and Google ADK's variants).

Current: `gen_ai.input.messages` / `gen_ai.output.messages` (parts), `gen_ai.system_instructions`.
Deprecated: `gen_ai.{system,user,assistant,tool}.message` and `gen_ai.choice` span events.
OpenLLMetry: indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`, `llm.request.functions.N.*`.
ADK: `gcp.vertex.agent.llm_request` / `llm_response` / `tool_call_args` / `tool_response`.
"""

from __future__ import annotations

from typing import Any

from corpus_tool.ingest.attrs import indexed
from corpus_tool.ingest.chat import message, messages, text_of, tool_call, tool_calls
from corpus_tool.ingest.coerce import loads_maybe, obj, opt_id, result_value
from corpus_tool.ingest.spans import Facts, Span
from corpus_tool.model.values import ABSENT

MODEL_OPS = {"chat", "generate_content", "text_completion", "completion"}
AGENT_OPS = {"invoke_agent", "create_agent", "invoke_workflow"}
_MESSAGE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


class GenAI:
    """OTel GenAI semconv, with OpenLLMetry's indexed attributes."""

    prefixes: tuple[str, ...] = (
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.prompt",
        "gen_ai.completion",
        "gen_ai.usage",
        "gen_ai.tool.definitions",
        "llm.request.functions",
        "gen_ai.request.model",
        "gen_ai.response.model",
        "gen_ai.request.temperature",
        "gen_ai.response.finish_reasons",
        "gen_ai.operation.name",
        "gen_ai.tool.name",
        "gen_ai.tool.call",
        "gen_ai.agent.name",
        "error.type",
        "tool_arguments",
        "tool_response",
    )

    def kind(self, span: Span) -> str | None:
        op = span.attributes.get("gen_ai.operation.name")
        if op in MODEL_OPS or span.attributes.get("llm.request.type") in ("chat", "completion"):
            return "model"
        if op == "execute_tool" or (op is None and "gen_ai.tool.name" in span.attributes):
            return "tool"
        if op in AGENT_OPS:
            return "agent"
        return None

    def facts(self, span: Span, kind: str) -> Facts:
        a = span.attributes
        common = {"agent": a.get("gen_ai.agent.name") or a.get("gen_ai.workflow.name")}
        if kind == "model":
            return {**common, **_model(span)}
        if kind == "tool":
            return {
                **common,
                "tool": a.get("gen_ai.tool.name"),
                "call_id": a.get("gen_ai.tool.call.id"),
                "arguments": a.get("gen_ai.tool.call.arguments", a.get("tool_arguments")),
                "result": _result(a),
            }
        return common


def _result(a: dict[str, Any]) -> Any:
    for key in ("gen_ai.tool.call.result", "tool_response"):
        if key in a:
            return result_value(a[key])
    return ABSENT


def _model(span: Span) -> Facts:
    a = span.attributes
    content, calls, finish = _output(span)
    usage = {
        k.removeprefix("gen_ai.usage."): v for k, v in a.items() if k.startswith("gen_ai.usage.")
    }
    finish_reasons = loads_maybe(a.get("gen_ai.response.finish_reasons"))
    if finish is None and isinstance(finish_reasons, list) and finish_reasons:
        finish = finish_reasons[0]
    requested = a.get("gen_ai.request.model")
    answered = a.get("gen_ai.response.model") or requested
    return {
        "model": answered,
        "requested_model": requested if requested != answered else None,
        "messages": _input(span),
        "content": content,
        "calls": calls,
        "finish_reason": finish,
        "usage": usage or None,
        "tools": _tools(a),
        "temperature": a.get("gen_ai.request.temperature"),
    }


def _input(span: Span) -> list[dict[str, Any]]:
    a = span.attributes
    system = loads_maybe(a.get("gen_ai.system_instructions"))
    head = [{"role": "system", "content": text_of(system)}] if system else []
    current = loads_maybe(a.get("gen_ai.input.messages"))
    if isinstance(current, list):
        return head + messages(current)
    prompt = indexed(a, "gen_ai.prompt")
    if prompt:
        return [_indexed_message(m) for m in prompt]
    return [_event_message(e.name, e.attributes) for e in span.events if e.name in _MESSAGE_EVENTS]


def _indexed_message(raw: dict[str, Any]) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": raw.get("role") or "user", "content": raw.get("content")}
    if raw.get("tool_calls"):
        msg["tool_calls"] = tool_calls(raw["tool_calls"])
    if raw.get("tool_call_id"):
        msg["tool_call_id"] = raw["tool_call_id"]
    return msg


def _event_message(name: str, attrs: dict[str, Any]) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": attrs.get("role") or _MESSAGE_EVENTS[name]}
    msg["content"] = loads_maybe(attrs.get("content"))
    calls = loads_maybe(attrs.get("tool_calls"))
    if calls:
        msg["tool_calls"] = tool_calls(calls)
    if attrs.get("id") and msg["role"] == "tool":
        msg["tool_call_id"] = attrs["id"]
    return msg


def _output(span: Span) -> tuple[str | None, list[dict[str, Any]], Any]:
    a = span.attributes
    current = loads_maybe(a.get("gen_ai.output.messages"))
    if isinstance(current, list) and current:
        return output_messages(current)
    completion = indexed(a, "gen_ai.completion")
    if completion:
        return output_messages(completion)
    choices = [e.attributes for e in span.events if e.name == "gen_ai.choice"]
    if choices:
        first = choices[0]
        chosen = loads_maybe(first.get("message")) or {}
        return output_messages([{**(obj(chosen)), **first}])
    return None, [], None


def output_messages(raw: list[Any]) -> tuple[str | None, list[dict[str, Any]], Any]:
    """Output messages (or choices): the text joined, every tool call, the first finish reason."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    finish = None
    for item in raw:
        if not isinstance(item, dict):
            continue
        msg = message(item)
        text = text_of(msg.get("content"))
        if text:
            texts.append(text)
        calls.extend(msg.get("tool_calls") or [])
        calls.extend(_calls_in_content(msg.get("content")))
        finish = finish or item.get("finish_reason")
    return ("".join(texts) if texts else None), calls, finish


def _calls_in_content(content: Any) -> list[dict[str, Any]]:
    """Koog writes tool calls as the content list itself."""
    if not isinstance(content, list):
        return []
    return tool_calls([p for p in content if isinstance(p, dict) and "function" in p])


def _tools(a: dict[str, Any]) -> list[Any] | None:
    defs = loads_maybe(a.get("gen_ai.tool.definitions"))
    if isinstance(defs, list):
        return defs
    functions = indexed(a, "llm.request.functions")
    for fn in functions:
        if isinstance(fn.get("parameters"), str):
            fn["parameters"] = loads_maybe(fn["parameters"])
    return functions or None


class Vertex:
    """Google ADK's `gcp.vertex.agent.*` attributes: the model request/response as JSON."""

    prefixes: tuple[str, ...] = (
        "gcp.vertex.agent.llm_request",
        "gcp.vertex.agent.llm_response",
        "gcp.vertex.agent.tool_call_args",
        "gcp.vertex.agent.tool_response",
    )

    def kind(self, span: Span) -> str | None:
        a = span.attributes
        if span.name == "call_llm" and "gcp.vertex.agent.llm_request" in a:
            return "model"
        return None

    def facts(self, span: Span, kind: str) -> Facts:
        a = span.attributes
        if kind == "tool":
            result = result_value(a.get("gcp.vertex.agent.tool_response", ABSENT))
            return {"arguments": a.get("gcp.vertex.agent.tool_call_args"), "result": result}
        if kind != "model":
            return {}
        return {
            **gemini_request(a.get("gcp.vertex.agent.llm_request")),
            **gemini_response(a.get("gcp.vertex.agent.llm_response")),
        }


def gemini_request(raw: Any) -> Facts:
    """A google-genai request (`{model, config: {system_instruction, tools}, contents}`)."""
    request = loads_maybe(raw)
    if not isinstance(request, dict):
        return {}
    config = obj(request.get("config"))
    system = config.get("system_instruction")
    head = [{"role": "system", "content": text_of(system)}] if system else []
    contents = [gemini_message(m) for m in request.get("contents") or []]
    return {"model": request.get("model"), "messages": head + contents}


def gemini_response(raw: Any) -> Facts:
    """A google-genai response (`{content: {parts}, finish_reason, usage_metadata}`)."""
    response = loads_maybe(raw)
    if not isinstance(response, dict) or not isinstance(response.get("content"), dict):
        return {}
    msg = gemini_message(response["content"])
    return {
        "content": msg.get("content"),
        "calls": msg.get("tool_calls") or [],
        "finish_reason": response.get("finish_reason"),
        "usage": response.get("usage_metadata"),
    }


def gemini_message(raw: Any) -> dict[str, Any]:
    """A Gemini `{role, parts: [text | function_call | function_response]}` as a chat message."""
    if not isinstance(raw, dict):
        return message(raw)
    parts = [p for p in raw.get("parts") or [] if isinstance(p, dict)]
    role = {"model": "assistant"}.get(str(raw.get("role")), raw.get("role") or "user")
    texts = [p["text"] for p in parts if isinstance(p.get("text"), str)]
    msg: dict[str, Any] = {"role": role, "content": "".join(texts) if texts else None}
    calls = [
        tool_call(p["function_call"]) for p in parts if isinstance(p.get("function_call"), dict)
    ]
    if calls:
        msg["tool_calls"] = [x for x in calls if x is not None]
    for part in parts:
        response = part.get("function_response")
        if isinstance(response, dict):
            msg.update(role="tool", tool_call_id=opt_id(response.get("id")))
            msg["content"] = response.get("response")
    return msg
