"""What the span-based importers share: the attribute conventions, in order, and span groups
to runs.

OTLP/Jaeger (`otel-genai`), Phoenix span JSON (`openinference`) and Langfuse observations all
end as `Span` values; each reads them through `CONVENTIONS` (OpenInference first, then the
OTel GenAI semantic conventions, then Google ADK's attributes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.genai_attrs import GenAI, Vertex
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.oi_attrs import OpenInference
from corpus_tool.ingest.spans import Convention, Span, TraceHeader, to_body
from corpus_tool.ingest.vercel_attrs import VercelAI

CONVENTIONS: tuple[Convention, ...] = (OpenInference(), GenAI(), Vertex(), VercelAI())

SpanGroups = dict[str, tuple[list[Span], dict[str, Any]]]
"""Spans by trace id, each group with its resource attributes."""


def runs(by_trace: SpanGroups, fmt: str, path: Path) -> list[Imported]:
    """One Imported per trace id; a file without a span that maps to an event is refused."""
    out = []
    for trace_id, (spans, resource) in by_trace.items():
        agent = {"name": resource.get("service.name"), "version": resource.get("service.version")}
        extra = {"resource": resource} if resource else {}
        body = to_body(spans, CONVENTIONS, TraceHeader(trace_id, agent, extra))
        if body["events"]:
            out.append(Imported(fmt, body, trace_id=trace_id, label=trace_id))
    if not out:
        names = sorted({s.name for spans, _ in by_trace.values() for s in spans})[:8]
        raise InputError(
            "no GenAI spans (model calls or tool executions) in this trace export; "
            f"span names seen: {', '.join(names) or 'none'}",
            path,
        )
    return out
