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
from corpus_tool.ingest.coerce import iso_from_ns, obj
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.spans import Span, SpanEvent, TraceHeader, to_body
from corpus_tool.ingest.vercel_attrs import VercelAI, operation


class VercelAIImporter:
    """AI SDK spans as JS `ReadableSpan` JSON."""

    name = "vercel-ai"

    def sniff(self, data: Any, path: Path) -> bool:
        items = _items(data)
        return (
            bool(items)
            and all(_span_id(i) for i in items[:3])
            and any(operation(obj(i.get("attributes")), str(i.get("name"))) for i in items)
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
            body = to_body(spans, (VercelAI(),), TraceHeader(trace_id, {}, {}))
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
