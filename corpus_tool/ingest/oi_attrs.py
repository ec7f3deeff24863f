"""The OpenInference semantic conventions (Arize Phoenix and its instrumentations).

`openinference.span.kind` LLM/TOOL/AGENT; flattened `llm.input_messages.N.message.*` and
`llm.output_messages.N.message.*` (content, `contents.M.message_content.*`,
`tool_calls.K.tool_call.function.*`); `tool.name`, `tool_call.*`; `input.value`/`output.value`.
"""

from __future__ import annotations

from typing import Any

from corpus_tool.ingest.attrs import indexed
from corpus_tool.ingest.chat import text_of, tool_calls, tool_message_result
from corpus_tool.ingest.coerce import loads_maybe, result_value
from corpus_tool.ingest.spans import Facts, Span
from corpus_tool.model.values import ABSENT

_KINDS = {"LLM": "model", "TOOL": "tool", "AGENT": "agent"}


class OpenInference:
    """OpenInference attributes."""

    prefixes: tuple[str, ...] = (
        "openinference.span.kind",
        "llm.input_messages",
        "llm.output_messages",
        "llm.model_name",
        "llm.token_count",
        "llm.tools",
        "llm.invocation_parameters",
        "tool.name",
        "tool_call",
        "input.value",
        "output.value",
        "input.mime_type",
        "output.mime_type",
    )

    def kind(self, span: Span) -> str | None:
        return _KINDS.get(str(span.attributes.get("openinference.span.kind", "")).upper())

    def facts(self, span: Span, kind: str) -> Facts:
        a = span.attributes
        if self.kind(span) is None:
            return {}
        if kind == "model":
            return _model(a)
        if kind == "tool":
            return _tool(a, span.name)
        return {
            "agent": a.get("agent.name") or a.get("graph.node.id") or span.name,
            "input": a.get("input.value"),
            "output": a.get("output.value"),
        }


def _tool(a: dict[str, Any], span_name: str) -> Facts:
    """A TOOL span; LangChain's instrumentation logs the ToolMessage and, for a one-argument
    tool, only the argument's value as input: `bare_input` asks for the model's arguments."""
    raw_input = a.get("tool_call.function.arguments", a.get("input.value"))
    facts: Facts = {
        "tool": a.get("tool.name") or a.get("tool_call.function.name") or span_name,
        "call_id": a.get("tool_call.id"),
        "arguments": raw_input,
        "result": result_value(a["output.value"]) if "output.value" in a else ABSENT,
    }
    message = tool_message_result(loads_maybe(a.get("output.value")))
    if message is not None:
        facts["result"], facts["error"], call_id = message
        facts["call_id"] = facts["call_id"] or call_id
    if raw_input is not None and not isinstance(result_value(raw_input), dict):
        facts["bare_input"] = True
    return facts


def _model(a: dict[str, Any]) -> Facts:
    inputs = [_message(m.get("message") or {}) for m in indexed(a, "llm.input_messages")]
    outputs = [_message(m.get("message") or {}) for m in indexed(a, "llm.output_messages")]
    texts = [t for t in (text_of(m.get("content")) for m in outputs) if t]
    usage = {
        k.removeprefix("llm.token_count."): v
        for k, v in a.items()
        if k.startswith("llm.token_count.")
    }
    tools = [t.get("tool", {}).get("json_schema") for t in indexed(a, "llm.tools")]
    params = loads_maybe(a.get("llm.invocation_parameters"))
    params = dict(params) if isinstance(params, dict) else {}
    requested = params.pop("model", None)  # the model id is the event's own field
    # LangChain's instrumentation reports the bound tools among the invocation parameters
    # too: they are the request's `tools` (one field, as every agent sends them), not a param
    offered = params.pop("tools", None)
    tools = tools or (offered if isinstance(offered, list) else [])
    return {
        "model": a.get("llm.model_name"),
        "messages": inputs,
        "content": "".join(texts) if texts else None,
        "calls": [call for m in outputs for call in m.get("tool_calls") or []],
        "usage": usage or None,
        "tools": [loads_maybe(t) for t in tools if t] or None,
        "params": params or None,
        "requested_model": requested,
    }


def _message(raw: dict[str, Any]) -> dict[str, Any]:
    content = raw.get("content")
    if content is None and isinstance(raw.get("contents"), list):
        content = text_of([p.get("message_content") or {} for p in raw["contents"]])
    msg: dict[str, Any] = {"role": raw.get("role") or "user", "content": content}
    calls = [t.get("tool_call") or {} for t in raw.get("tool_calls") or []]
    if calls:
        msg["tool_calls"] = tool_calls(calls)
    for key in ("tool_call_id", "name"):
        if raw.get(key):
            msg[key] = raw[key]
    return msg
