"""OpenTelemetry traces carrying GenAI (or OpenInference) attributes.

Reads OTLP/JSON (`resourceSpans/scopeSpans/spans`, with `resourceLogs` event records joined to
their spans), the legacy Tempo shape (`batches/instrumentationLibrarySpans`), and Jaeger's
query-API JSON (`data[].spans[].tags`). Each trace id in the file is one run.

OTLP JSON lines (one export `{"resourceSpans": [...]}` or `{"resourceLogs": [...]}` per line, as
the OpenTelemetry Collector's file exporter writes them) are read as one export holding every
line's resource spans and logs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest import json_lines
from corpus_tool.ingest.attrs import key_values
from corpus_tool.ingest.coerce import iso_from_epoch, iso_from_ns
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.otel import SpanGroups, runs
from corpus_tool.ingest.spans import Span, SpanEvent
from corpus_tool.io import files

_ERROR_CODES = {2, "2", "STATUS_CODE_ERROR", "ERROR"}


class OtelGenAIImporter:
    """OTLP/JSON, legacy OTLP batches and Jaeger JSON."""

    name = "otel-genai"

    def sniff_bytes(self, raw: bytes, path: Path) -> bool:
        """OTLP JSON lines: every value an export with resource spans or logs."""
        values = json_lines.head(raw)
        return values is not None and all(_is_export_line(v) for v in values)

    def read(self, raw: bytes, path: Path) -> Any:
        """One JSON document as it is; OTLP JSON lines merged into one export."""
        try:
            return files.parse_json(raw, path)
        except InputError:
            lines = json_lines.read(raw, path)
        if not all(_is_export_line(v) for v in lines):
            raise InputError(
                'not OTLP JSON lines: every line must be an export {"resourceSpans": [...]}',
                path,
            )
        return {
            key: [part for line in lines for part in line.get(key) or []]
            for key in ("resourceSpans", "resourceLogs")
        }

    def sniff(self, data: Any, path: Path) -> bool:
        if not isinstance(data, dict):
            return False
        if isinstance(data.get("resourceSpans"), list) or isinstance(data.get("batches"), list):
            return True
        traces = data.get("data")
        return isinstance(traces, list) and any(
            isinstance(t, dict) and "traceID" in t and "spans" in t for t in traces
        )

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError("not an OTLP/JSON or Jaeger trace export", path)
        if isinstance(data.get("data"), list):
            spans = jaeger_spans(data["data"])
        else:
            spans = otlp_spans(data, path)
        return runs(spans, self.name, path)


IMPORTER = OtelGenAIImporter()


def _is_export_line(value: Any) -> bool:
    return isinstance(value, dict) and any(
        isinstance(value.get(k), list) for k in ("resourceSpans", "resourceLogs")
    )


def otlp_spans(data: dict[str, Any], path: Path) -> SpanGroups:
    """Spans of OTLP/JSON (current or legacy field names), grouped by trace id."""
    logs = _log_events(data.get("resourceLogs") or [])
    out: SpanGroups = {}
    for rs in data.get("resourceSpans") or data.get("batches") or []:
        if not isinstance(rs, dict):
            raise InputError("resourceSpans entries must be objects", path)
        resource = key_values((rs.get("resource") or {}).get("attributes"))
        scopes = rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []
        for scope in scopes:
            for raw in scope.get("spans") or []:
                trace_id = str(raw.get("traceId") or "")
                span = _otlp_span(raw, logs.get(str(raw.get("spanId")), []))
                group = out.setdefault(trace_id, ([], {}))
                group[0].append(span)
                group[1].update(resource)
    return out


def _otlp_span(raw: dict[str, Any], logged: list[SpanEvent]) -> Span:
    start, end = _int(raw.get("startTimeUnixNano")), _int(raw.get("endTimeUnixNano"))
    status = raw.get("status") or {}
    events = tuple(
        SpanEvent(
            str(e.get("name")),
            iso_from_ns(e.get("timeUnixNano")),
            key_values(e.get("attributes")),
        )
        for e in raw.get("events") or []
    )
    return Span(
        span_id=str(raw.get("spanId")),
        parent_id=str(raw["parentSpanId"]) if raw.get("parentSpanId") else None,
        name=str(raw.get("name") or ""),
        start=iso_from_ns(start),
        end=iso_from_ns(end),
        start_key=start / 1e9,
        duration_ms=(end - start) / 1e6 if end >= start > 0 else None,
        attributes=key_values(raw.get("attributes")),
        events=events + tuple(logged),
        status_error=str(status.get("message") or "")
        if status.get("code") in _ERROR_CODES
        else None,
    )


def _log_events(resource_logs: list[Any]) -> dict[str, list[SpanEvent]]:
    """GenAI event log records (`gen_ai.user.message`, `gen_ai.choice`, ...) by span id."""
    out: dict[str, list[SpanEvent]] = {}
    for rl in resource_logs:
        for scope in (rl or {}).get("scopeLogs") or []:
            for record in scope.get("logRecords") or []:
                name = record.get("eventName") or key_values(record.get("attributes")).get(
                    "event.name"
                )
                if not record.get("spanId") or not name:
                    continue
                attrs = key_values(record.get("attributes"))
                body = key_values(
                    ((record.get("body") or {}).get("kvlistValue") or {}).get("values")
                )
                when = iso_from_ns(record.get("timeUnixNano") or record.get("observedTimeUnixNano"))
                out.setdefault(str(record["spanId"]), []).append(
                    SpanEvent(str(name), when, {**attrs, **body})
                )
    return out


def jaeger_spans(traces: list[Any]) -> SpanGroups:
    """Spans of Jaeger query-API JSON, grouped by trace id."""
    out: SpanGroups = {}
    for trace in traces:
        if not isinstance(trace, dict):
            continue
        processes = trace.get("processes") or {}
        resource: dict[str, Any] = {}
        spans = []
        for raw in trace.get("spans") or []:
            process = processes.get(raw.get("processID")) or {}
            resource.setdefault("service.name", process.get("serviceName"))
            resource.update(_tags(process.get("tags")))
            spans.append(_jaeger_span(raw))
        out[str(trace.get("traceID"))] = (spans, {k: v for k, v in resource.items() if v})
    return out


def _jaeger_span(raw: dict[str, Any]) -> Span:
    tags = _tags(raw.get("tags"))
    start, duration = _int(raw.get("startTime")), _int(raw.get("duration"))
    parent = next(
        (r.get("spanID") for r in raw.get("references") or [] if r.get("refType") == "CHILD_OF"),
        None,
    )
    errored = tags.get("error") is True or tags.get("otel.status_code") == "ERROR"
    events = []
    for log in raw.get("logs") or []:
        fields = _tags(log.get("fields"))
        events.append(
            SpanEvent(str(fields.pop("event", "log")), iso_from_epoch(log.get("timestamp")), fields)
        )
    return Span(
        span_id=str(raw.get("spanID")),
        parent_id=str(parent) if parent else None,
        name=str(raw.get("operationName") or ""),
        start=iso_from_epoch(start),
        end=iso_from_epoch(start + duration) if start else None,
        start_key=start / 1e6,
        duration_ms=duration / 1e3 if duration else None,
        attributes={k: v for k, v in tags.items() if k not in ("error", "otel.status_code")},
        events=tuple(events),
        status_error=str(tags.get("otel.status_description") or "") if errored else None,
    )


def _tags(items: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = item.get("value")
    return out


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
