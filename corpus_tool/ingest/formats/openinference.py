"""Span JSON as Arize Phoenix and the OpenTelemetry SDK write it (OpenInference attributes).

Reads a list of spans (or Phoenix's REST answer `{"data": [...]}`) where each span is
`{name, context: {trace_id, span_id}, parent_id, start_time, end_time, status, attributes,
events}` — Phoenix's span export and `ReadableSpan.to_json()` (the console exporter) — and
Phoenix dataframe rows with flattened `context.span_id` / `attributes.*` columns, and Phoenix's
own span JSON (its encoder's form: the kind as a top-level `span_kind`, `status_code`). Attributes
may be nested (`{"llm": {"input_messages": [...]}}`) or flat; both flatten to dotted keys and
go through the same conventions as OTLP files (OpenInference first, then OTel GenAI).

Spans one per line (JSON lines), or one after another as the SDK's console exporter prints
them, are read as the list of those spans: one run per trace id, as in a list.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest import json_lines
from corpus_tool.ingest.attrs import flatten
from corpus_tool.ingest.coerce import obj, parse_time_key
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.otel import SpanGroups, runs
from corpus_tool.ingest.spans import Span, SpanEvent
from corpus_tool.io import files

_ERROR = {"ERROR", "STATUS_CODE_ERROR", "StatusCode.ERROR"}


class OpenInferenceImporter:
    """Phoenix / OTel SDK span JSON."""

    name = "openinference"

    def sniff_bytes(self, raw: bytes, path: Path) -> bool:
        """Spans one per line (or printed one after another): each a span with an id."""
        values = json_lines.head(raw)
        return values is not None and all(isinstance(v, dict) and _span_id(v) for v in values)

    def read(self, raw: bytes, path: Path) -> Any:
        """One JSON document as it is; span lines as the list of their spans."""
        try:
            return files.parse_json(raw, path)
        except InputError:
            return json_lines.read(raw, path)

    def sniff(self, data: Any, path: Path) -> bool:
        items = _items(data)
        return bool(items) and all(_span_id(i) is not None for i in items[:3])

    def load(self, data: Any, path: Path) -> list[Imported]:
        items = _items(data)
        if not items or any(_span_id(i) is None for i in items):
            raise InputError("not span JSON: every span needs context.span_id", path)
        by_trace: SpanGroups = {}
        for item in items:
            trace_id, span, resource = _span(item)
            group = by_trace.setdefault(trace_id, ([], {}))
            group[0].append(span)
            group[1].update(resource)
        return runs(by_trace, self.name, path)


IMPORTER = OpenInferenceImporter()


def _items(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict) and _span_id(data):  # span lines of one line: one span
        return [data]
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    return [i for i in data if isinstance(i, dict)] if isinstance(data, list) else []


def _span_id(item: dict[str, Any]) -> str | None:
    context = item.get("context")
    if isinstance(context, dict) and context.get("span_id"):
        return _hex(context["span_id"])
    value = item.get("context.span_id")
    return _hex(value) if value else None


def _hex(value: Any) -> str:
    """The SDK writes ids as `0x...`; Phoenix as bare hex."""
    return str(value).removeprefix("0x")


def _span(item: dict[str, Any]) -> tuple[str, Span, dict[str, Any]]:
    context = obj(item.get("context"))
    trace_id = _hex(context.get("trace_id") or item.get("context.trace_id") or "")
    attrs = flatten(item.get("attributes")) if isinstance(item.get("attributes"), dict) else {}
    attrs.update(
        {k.removeprefix("attributes."): v for k, v in item.items() if k.startswith("attributes.")}
    )
    if item.get("span_kind") and "openinference.span.kind" not in attrs:
        # Phoenix's own span JSON (its fixtures and exports) carries the kind beside the
        # attributes, not among them
        attrs["openinference.span.kind"] = str(item["span_kind"]).removeprefix("SpanKind.")
    start, end = item.get("start_time"), item.get("end_time")
    start_key, end_key = parse_time_key(start), parse_time_key(end)
    resource = (
        (item.get("resource") or {}).get("attributes")
        if isinstance(item.get("resource"), dict)
        else None
    )
    span = Span(
        span_id=str(_span_id(item)),
        parent_id=_hex(item["parent_id"]) if item.get("parent_id") else None,
        name=str(item.get("name") or ""),
        start=start,
        end=end,
        start_key=start_key,
        duration_ms=(end_key - start_key) * 1000 if end_key >= start_key > 0 else None,
        attributes=attrs,
        events=tuple(_event(e) for e in item.get("events") or [] if isinstance(e, dict)),
        status_error=_status_error(item),
    )
    return trace_id, span, obj(resource)


def _event(raw: dict[str, Any]) -> SpanEvent:
    attrs = obj(raw.get("attributes"))
    return SpanEvent(str(raw.get("name")), raw.get("timestamp"), flatten(attrs))


def _status_error(item: dict[str, Any]) -> str | None:
    status = obj(item.get("status"))
    code = status.get("status_code") or item.get("status_code")
    if str(code) not in _ERROR:
        return None
    return str(status.get("description") or item.get("status_message") or "")
