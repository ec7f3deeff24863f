"""Vercel AI SDK telemetry: its `ai.*` spans as JS `ReadableSpan` JSON.

A list of spans (or `{"spans": [...]}`), each as the OpenTelemetry JS SDK holds it:
`{name, spanContext | _spanContext: {traceId, spanId}, parentSpanId | parentSpanContext,
startTime, endTime ([seconds, nanoseconds] HrTime), status: {code}, attributes, events}`.
The AI SDK writes (https://ai-sdk.dev/docs/ai-sdk-core/telemetry#collected-data):
`ai.generateText` / `ai.streamText` around a call (the prompt, the final text), one
`ai.generateText.doGenerate` / `ai.streamText.doStream` per model call (`ai.prompt.messages`,
`ai.prompt.tools`, `ai.response.text`, `ai.response.toolCalls`, `ai.model.id`,
`ai.response.model`, `ai.usage.*`, `ai.settings.*`) and one `ai.toolCall` per tool run
(`ai.toolCall.name`, `.id`, `.args`, `.result`). Messages are the SDK's own (content parts
`text`, `tool-call`, `tool-result`; v4 `args`/`result`, v5 `input`/`output`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.chat import text_of
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.spans import Facts, Run, Span, SpanEvent, to_body
from corpus_tool.ingest.values import arguments, iso_from_ns, loads_maybe, obj, opt_id
from corpus_tool.model.values import ABSENT

_MODEL_OPS = {
    "ai.generateText.doGenerate",
    "ai.streamText.doStream",
    "ai.generateObject.doGenerate",
    "ai.streamObject.doStream",
}
_AGENT_OPS = {"ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"}


class VercelAIImporter:
    """AI SDK spans as JS `ReadableSpan` JSON."""

    name = "vercel-ai"

    def sniff(self, data: Any, path: Path) -> bool:
        items = _items(data)
        return (
            bool(items)
            and all(_span_id(i) for i in items[:3])
            and any(_operation(obj(i.get("attributes")), str(i.get("name"))) for i in items)
        )

    def load(self, data: Any, path: Path) -> list[Imported]:
        items = _items(data)
        if not items or not all(_span_id(i) for i in items):
            raise InputError("not AI SDK span JSON: every span needs spanContext.spanId", path)
        by_trace: dict[str, list[Span]] = {}
        for item in items:
            by_trace.setdefault(_trace_id(item), []).append(_span(item))
        out = []
        for trace_id, spans in by_trace.items():
            body = to_body(spans, (VercelAI(),), Run(trace_id, {}, {}))
            if body["events"]:
                out.append(Imported(self.name, body, trace_id=trace_id, label=trace_id))
        if not out:
            raise InputError(
                "no AI SDK model calls or tool calls (ai.*.doGenerate, ai.*.doStream, "
                "ai.toolCall spans) in this file; was telemetry recorded with "
                "experimental_telemetry: {isEnabled: true}?",
                path,
            )
        return out


IMPORTER = VercelAIImporter()


def _items(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict) and isinstance(data.get("spans"), list):
        data = data["spans"]
    return [i for i in data if isinstance(i, dict)] if isinstance(data, list) else []


def _context(item: dict[str, Any]) -> dict[str, Any]:
    return obj(item.get("spanContext") or item.get("_spanContext"))


def _span_id(item: dict[str, Any]) -> str | None:
    value = _context(item).get("spanId")
    return str(value) if value else None


def _trace_id(item: dict[str, Any]) -> str:
    return str(_context(item).get("traceId") or "")


def _parent(item: dict[str, Any]) -> str | None:
    parent = item.get("parentSpanId") or obj(item.get("parentSpanContext")).get("spanId")
    return str(parent) if parent else None


def _nanos(value: Any) -> int:
    """HrTime `[seconds, nanoseconds]`, or epoch milliseconds."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return int(value[0]) * 1_000_000_000 + int(value[1])
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return int(value * 1_000_000)
    return 0


def _span(item: dict[str, Any]) -> Span:
    start, end = _nanos(item.get("startTime")), _nanos(item.get("endTime"))
    status = obj(item.get("status"))
    failed = status.get("code") in (2, "ERROR", "STATUS_CODE_ERROR")
    return Span(
        span_id=str(_span_id(item)),
        parent_id=_parent(item),
        name=str(item.get("name") or ""),
        start=iso_from_ns(start) if start else None,
        end=iso_from_ns(end) if end else None,
        start_key=start / 1e9,
        duration_ms=(end - start) / 1e6 if end >= start > 0 else None,
        attributes=dict(obj(item.get("attributes"))),
        events=tuple(_event(e) for e in item.get("events") or [] if isinstance(e, dict)),
        status_error=str(status.get("message") or "") if failed else None,
    )


def _event(raw: dict[str, Any]) -> SpanEvent:
    stamp = _nanos(raw.get("time"))
    return SpanEvent(str(raw.get("name")), iso_from_ns(stamp) if stamp else None,
                     dict(obj(raw.get("attributes"))))  # fmt: skip


def _operation(attrs: dict[str, Any], name: str) -> str | None:
    op = str(attrs.get("ai.operationId") or name)
    return op if op in _MODEL_OPS or op in _AGENT_OPS or op == "ai.toolCall" else None


class VercelAI:
    """The AI SDK's `ai.*` span attributes."""

    prefixes: tuple[str, ...] = ("ai.", "operation.name", "resource.name")

    def kind(self, span: Span) -> str | None:
        op = _operation(span.attributes, span.name)
        if op in _MODEL_OPS:
            return "model"
        if op == "ai.toolCall":
            return "tool"
        return "agent" if op in _AGENT_OPS else None

    def facts(self, span: Span, kind: str) -> Facts:
        a = span.attributes
        if kind == "model":
            return _model(a)
        if kind == "tool":
            return {
                "tool": a.get("ai.toolCall.name") or span.name,
                "call_id": a.get("ai.toolCall.id"),
                "arguments": loads_maybe(a.get("ai.toolCall.args", a.get("ai.toolCall.input"))),
                "result": _tool_result(a),
            }
        prompt = obj(loads_maybe(a.get("ai.prompt")))
        return {
            "agent": a.get("ai.telemetry.functionId") or span.name,
            "input": prompt.get("prompt") if isinstance(prompt.get("prompt"), str) else None,
            "output": a.get("ai.response.text"),
        }


def _tool_result(a: dict[str, Any]) -> Any:
    for key in ("ai.toolCall.result", "ai.toolCall.output"):
        if key in a:
            return loads_maybe(a[key])
    return ABSENT


_USAGE = {
    "ai.usage.promptTokens": "input_tokens",
    "ai.usage.inputTokens": "input_tokens",
    "ai.usage.completionTokens": "output_tokens",
    "ai.usage.outputTokens": "output_tokens",
    "ai.usage.totalTokens": "total_tokens",
}


def _model(a: dict[str, Any]) -> Facts:
    settings = {
        k.removeprefix("ai.settings."): v
        for k, v in a.items()
        if k.startswith("ai.settings.") and k != "ai.settings.temperature"
    }
    usage = {_USAGE[k]: v for k, v in a.items() if k in _USAGE}
    tools = a.get("ai.prompt.tools")
    raw_calls = loads_maybe(a.get("ai.response.toolCalls"))
    return {
        "model": a.get("ai.response.model") or a.get("ai.model.id"),
        "requested_model": a.get("ai.model.id"),
        "messages": sdk_messages(loads_maybe(a.get("ai.prompt.messages"))),
        "content": a.get("ai.response.text") or a.get("ai.response.object"),
        "calls": [_call(c) for c in raw_calls if isinstance(c, dict)]
        if isinstance(raw_calls, list)
        else [],
        "tools": [loads_maybe(t) for t in tools] if isinstance(tools, list) else None,
        "temperature": a.get("ai.settings.temperature"),
        "params": settings or None,
        "finish_reason": a.get("ai.response.finishReason"),
        "usage": usage or None,
    }


def _call(raw: dict[str, Any]) -> dict[str, Any]:
    """An AI SDK tool call: `{toolCallId, toolName, args}` (v4) or `{..., input}` (v5)."""
    return {
        "id": opt_id(raw.get("toolCallId")),
        "name": str(raw.get("toolName") or ""),
        "arguments": arguments(raw.get("input", raw.get("args"))),
    }


def sdk_messages(raw: Any) -> list[dict[str, Any]]:
    """AI SDK model messages as chat messages (a tool message per tool result)."""
    out: list[dict[str, Any]] = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            out.extend(_message(item))
    return out


def _message(raw: dict[str, Any]) -> list[dict[str, Any]]:
    role, content = str(raw.get("role") or "user"), raw.get("content")
    if not isinstance(content, list):
        return [{"role": role, "content": content}]
    parts = [p for p in content if isinstance(p, dict)]
    results = [p for p in parts if p.get("type") == "tool-result"]
    if results:
        return [
            {"role": "tool", "tool_call_id": opt_id(p.get("toolCallId")),
             "name": p.get("toolName"), "content": _output(p)}
            for p in results
        ]  # fmt: skip
    calls = [_call(p) for p in parts if p.get("type") == "tool-call"]
    texts = [p for p in parts if p.get("type") in ("text", "reasoning") or "type" not in p]
    message: dict[str, Any] = {"role": role, "content": text_of(texts)}
    if calls:
        message["tool_calls"] = calls
    return [message]


def _output(part: dict[str, Any]) -> Any:
    """A tool-result part's value: v5 `output: {type, value}`, v4 `result`."""
    output = part.get("output")
    if isinstance(output, dict) and "value" in output:
        return output["value"]
    return output if "output" in part else part.get("result")
