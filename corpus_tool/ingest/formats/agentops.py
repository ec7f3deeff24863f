"""AgentOps trace exports: `{trace, spans}` as the AgentOps API and dashboard give them.

The agentops SDK records OpenTelemetry spans; the export nests their attributes
(`span_attributes: {gen_ai: {prompt: [{role, content}], completion: [...]}}`), which flattened
are OpenLLMetry's indexed attributes (`gen_ai.prompt.0.content`) and go through the GenAI
mapping. AgentOps' own keys say what a span is (`agentops.span.kind`): `llm` → model_call;
`tool` (CrewAI's tool spans: `tool.name`, `tool.parameters` and `tool.result` as `str()` of
the input and result, `tool.status`; `@agentops.tool` functions: `agentops.tool.input`
`{args, kwargs}` and `agentops.tool.output`) → tool_call; workflow, task and agent spans
are kept under `extra.other_spans`, and each model call's `node` is the role of the agent
span around it. Span events (`event_names`, `event_attributes`) become span events, so an
`exception` is the tool's or run's error. A span or trace marked `freeplan_truncated` (the
free plan cut it) marks its events truncated.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.attrs import flatten
from corpus_tool.ingest.coerce import loads_maybe, obj, parse_time_key, result_value
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.otel import CONVENTIONS
from corpus_tool.ingest.spans import Facts, Span, SpanEvent, TraceHeader, ancestors, to_body
from corpus_tool.model.values import ABSENT

_KIND = "agentops.span.kind"
_NODE = "agentops.node"


class AgentOpsImporter:
    """AgentOps `{trace, spans}` exports."""

    name = "agentops"

    def sniff(self, data: Any, path: Path) -> bool:
        if not isinstance(data, dict) or not isinstance(data.get("trace"), dict):
            return False
        spans = data.get("spans")
        head = [s for s in spans[:3] if isinstance(s, dict)] if isinstance(spans, list) else []
        return bool(head) and all("span_attributes" in s and "span_id" in s for s in head)

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError("not an AgentOps export: expected {trace, spans}", path)
        trace = data["trace"]
        spans = _with_nodes([_span(s) for s in data["spans"] if isinstance(s, dict)])
        root = next((s for s in spans if not s.parent_id), None)
        name = (root.attributes.get("agentops.entity.name") if root else None) or trace.get(
            "root_span_name"
        )
        run = TraceHeader(trace.get("trace_id"), {"name": name}, {"trace": trace})
        body = to_body(spans, (AgentOps(), *CONVENTIONS), run)
        if not body["events"]:
            raise InputError("no LLM or tool spans in this AgentOps trace", path)
        body["recorded"]["agent"]["name"] = name  # the crew, not its first agent
        _mark_truncated(body, trace, data["spans"])
        trace_id = str(trace.get("trace_id")) if trace.get("trace_id") else None
        return [Imported(self.name, body, trace_id=trace_id, label=trace_id)]


IMPORTER = AgentOpsImporter()


def _span(raw: dict[str, Any]) -> Span:
    start, end = parse_time_key(raw.get("start_time")), parse_time_key(raw.get("end_time"))
    names = raw.get("event_names") or []
    times = list(raw.get("event_timestamps") or []) + [None] * len(names)
    attrs = list(raw.get("event_attributes") or []) + [{}] * len(names)
    events = tuple(SpanEvent(str(n), times[i], flatten(obj(attrs[i]))) for i, n in enumerate(names))
    error = str(raw.get("status_message") or "") if raw.get("status_code") == "ERROR" else None
    return Span(
        span_id=str(raw.get("span_id")),
        parent_id=str(raw.get("parent_span_id") or "") or None,
        name=str(raw.get("span_name") or ""),
        start=raw.get("start_time"),
        end=raw.get("end_time"),
        start_key=start,
        duration_ms=(end - start) * 1000 if end >= start > 0 else None,
        attributes=flatten(obj(raw.get("span_attributes"))),
        events=events,
        status_error=error,
    )


def _with_nodes(spans: list[Span]) -> list[Span]:
    """Each span learns the role of the agent span around it (a crew runs many agents)."""
    by_id = {s.span_id: s for s in spans}
    out = []
    for span in spans:
        agent = next(
            (a for a in ancestors(span, by_id) if a.attributes.get(_KIND) == "agent"), None
        )
        role = agent.attributes.get("agent.role") if agent else None
        out.append(replace(span, attributes={**span.attributes, _NODE: role}) if role else span)
    return out


class AgentOps:
    """AgentOps' own attributes; the GenAI convention reads the model calls' content."""

    prefixes: tuple[str, ...] = (_KIND, _NODE, "tool.", "agentops.tool", "agentops.entity")

    def kind(self, span: Span) -> str | None:
        return {"llm": "model", "tool": "tool", "tool.usage": "tool"}.get(
            str(span.attributes.get(_KIND))
        )

    def facts(self, span: Span, kind: str) -> Facts:
        a = span.attributes
        node = {"agent": a.get(_NODE)}
        if kind != "tool":
            return node
        inputs = obj(loads_maybe(a.get("agentops.tool.input")))
        called = inputs.get("kwargs") if inputs and not inputs.get("args") else inputs or None
        output = a.get("tool.result", a.get("agentops.tool.output", ABSENT))
        facts: Facts = {
            **node,
            "tool": a.get("tool.name") or span.name.rsplit(".", 1)[0],
            "arguments": a.get("tool.parameters", called),
            "result": result_value(output) if output is not ABSENT else ABSENT,
        }
        if a.get("tool.status") == "error":
            facts.update(error={"type": "ToolError", "message": str(output)}, result=ABSENT)
        return facts


def _mark_truncated(body: dict[str, Any], trace: dict[str, Any], raw: list[Any]) -> None:
    """Events of spans the free plan cut (or all, when the whole trace was) are truncated."""
    cut = {
        str(s.get("span_id")) for s in raw if isinstance(s, dict) and s.get("freeplan_truncated")
    }
    for event in body["events"]:
        if trace.get("freeplan_truncated") or (event.get("extra") or {}).get("span_id") in cut:
            event["truncated"] = True
