"""Span trees to trace bodies: the part OTLP, Jaeger, Phoenix and Langfuse imports share.

A reader turns its file into `Span` values (flat attributes, ISO times); conventions
(OTel GenAI, OpenInference, ...) say what a span is and what facts it carries; this module
orders the spans by start time, merges the nested spans several instrumentations write for
one model call, and emits the events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from corpus_tool.ingest.attrs import take
from corpus_tool.ingest.body import first_user_text, last_answer, terminal_from, trace_body
from corpus_tool.ingest.build import error_event, model_event, tool_event
from corpus_tool.ingest.coerce import arguments, error, opt_id
from corpus_tool.ingest.linking import adopt_requested_arguments, answers_from_requests
from corpus_tool.model.values import ABSENT


@dataclass(frozen=True)
class SpanEvent:
    """A timed event inside a span (an exception, a deprecated gen_ai message event)."""

    name: str
    time: str | None
    attributes: dict[str, Any]


@dataclass(frozen=True)
class Span:
    """One span, whatever file it came from."""

    span_id: str
    parent_id: str | None
    name: str
    start: str | None
    end: str | None
    start_key: float
    duration_ms: float | None
    attributes: dict[str, Any]
    events: tuple[SpanEvent, ...] = ()
    status_error: str | None = None
    """The status message when the span's status is ERROR ('' when it has none)."""
    io: dict[str, Any] = field(default_factory=dict)
    """Values a format keeps outside attributes (Langfuse input/output/model/type)."""


Facts = dict[str, Any]
"""What a convention read from a span: kind, model, messages, content, calls, tool, ..."""


class Convention(Protocol):
    """An attribute convention: what a span is, and the facts it carries."""

    prefixes: tuple[str, ...]

    def kind(self, span: Span) -> str | None:
        """`model`, `tool`, `agent`, or None when the convention does not say."""

    def facts(self, span: Span, kind: str) -> Facts:
        """The facts of a span of that kind (missing keys: not known)."""


def read(span: Span, conventions: Sequence[Convention]) -> Facts:
    """A span's facts, each key from the first convention that knows it."""
    kind = next((k for k in (cv.kind(span) for cv in conventions) if k), None)
    facts: Facts = {"kind": kind}
    if kind is None:
        return facts
    for convention in conventions:
        fill(facts, convention.facts(span, kind))
    return facts


def fill(facts: Facts, more: Facts) -> None:
    """Take from `more` what `facts` lacks; an empty tool result (`{}`) is still a result."""
    for key, value in more.items():
        if key == "result":
            if facts.get(key, ABSENT) is ABSENT:
                facts[key] = value
        elif blank(facts.get(key)) and not blank(value):
            facts[key] = value


_ELIDED = {"", "<elided>"}


def blank(value: Any) -> bool:
    """No information: missing, empty, or the placeholder exporters write when content capture
    is off (`<elided>`), also inside a message list."""
    if value is None or value is ABSENT:
        return True
    if isinstance(value, str):
        return value in _ELIDED
    if (
        isinstance(value, list)
        and value
        and all(isinstance(m, dict) and "role" in m for m in value)
    ):
        return all(blank(m.get("content")) and not m.get("tool_calls") for m in value)
    return isinstance(value, (list, dict)) and not value


def exception_of(span: Span) -> dict[str, str] | None:
    """The span's error: its last `exception` event, else `error.type` + status message."""
    for event in reversed(span.events):
        if event.name == "exception":
            kind = str(event.attributes.get("exception.type") or "Error")
            message = str(event.attributes.get("exception.message") or "")
            return {"type": kind.rsplit(".", 1)[-1], "message": message}
    if span.status_error is None and "error.type" not in span.attributes:
        return None
    message = span.status_error or ""
    error_type = span.attributes.get("error.type")
    if error_type is None:
        return error(message)
    return {"type": str(error_type), "message": message.removeprefix(f"{error_type}: ")}


def stack_of(span: Span) -> str | None:
    for event in reversed(span.events):
        if event.name == "exception" and event.attributes.get("exception.stacktrace"):
            return str(event.attributes["exception.stacktrace"])
    return None


@dataclass(frozen=True)
class TraceHeader:
    """What a file says about the run around the spans."""

    trace_id: str | None
    agent: dict[str, Any]
    extra: dict[str, Any]


def to_body(
    spans: list[Span], conventions: Sequence[Convention], run: TraceHeader
) -> dict[str, Any]:
    """The trace body of one trace's spans."""
    ordered = sorted(enumerate(spans), key=lambda p: (p[1].start_key, p[0]))
    spans = [s for _, s in ordered]
    facts = {s.span_id: read(s, conventions) for s in spans}
    merged = _merge_nested(spans, facts)
    events: list[dict[str, Any]] = []
    bare: list[dict[str, Any]] = []
    unmapped: list[dict[str, Any]] = []
    for span in spans:
        kind = facts[span.span_id]["kind"]
        if span.span_id in merged.dropped:
            continue
        made = _event(span, facts[span.span_id], conventions, merged.absorbed.get(span.span_id))
        if made is not None:
            events.append(made)
            if facts[span.span_id].get("bare_input"):
                bare.append(made)
        elif kind is None:
            unmapped.append(_summary(span))
    adopt_requested_arguments(events, bare)
    events = answers_from_requests(events)
    events.extend(_agent_errors(spans, facts, events))
    return _assemble(spans, facts, events, run, unmapped)


def _agent_errors(
    spans: list[Span], facts: dict[str, Facts], events: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Errors agent spans and root spans ended with, unless a tool's error already says the same.

    They come last, at the span's end: an exception leaves an agent after all it did. A root
    span of no GenAI kind (the application's own span around the run) counts as the run.
    """
    seen = [e["error"] for e in events if e.get("error")]
    ids = {s.span_id for s in spans}
    out = []
    for span in sorted(spans, key=lambda s: s.end or ""):
        kind = facts[span.span_id]["kind"]
        counts = kind == "agent" or (kind is None and span.parent_id not in ids)
        err = exception_of(span) if counts else None
        if err is not None and err not in seen:
            seen.append(err)
            where = {**_where(span), "timestamp": span.end or span.start}
            out.append(error_event(err, **where, stack=stack_of(span)))
    return out


@dataclass(frozen=True)
class _Merged:
    dropped: set[str]
    absorbed: dict[str, list[tuple[Span, Facts]]]


def _merge_nested(spans: list[Span], facts: dict[str, Facts]) -> _Merged:
    """One model call often shows as nested spans (framework, SDK, HTTP client instrumentation).

    Keep the span with the richest facts, then the one whose request holds more messages (a
    request logged as one flattened string, as Langfuse's SDK logs a duplicate generation
    under Agno's `invoke` span, is poorer than the structured one), then the innermost; the
    others' facts fill its gaps.
    """
    by_id = {s.span_id: s for s in spans}
    groups: dict[str, list[str]] = {}
    for span in spans:
        kind = facts[span.span_id]["kind"]
        if kind not in ("model", "tool"):
            continue
        top = span.span_id
        for parent in ancestors(span, by_id):
            if _same_call(facts[parent.span_id], facts[span.span_id]):
                top = parent.span_id
        groups.setdefault(top, []).append(span.span_id)
    dropped: set[str] = set()
    absorbed: dict[str, list[tuple[Span, Facts]]] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        keep = max(enumerate(members), key=lambda p: (*_rank(facts[p[1]]), p[0]))[1]
        dropped.update(m for m in members if m != keep)
        absorbed[keep] = [(by_id[m], facts[m]) for m in members if m != keep]
    return _Merged(dropped, absorbed)


def ancestors(span: Span, by_id: dict[str, Span]) -> list[Span]:
    """The span's parent, grandparent, ...; a parent cycle in a broken export ends the walk."""
    out: list[Span] = []
    seen = {span.span_id}
    parent = by_id.get(span.parent_id or "")
    while parent is not None and parent.span_id not in seen:
        seen.add(parent.span_id)
        out.append(parent)
        parent = by_id.get(parent.parent_id or "")
    return out


def _same_call(outer: Facts, inner: Facts) -> bool:
    if outer["kind"] != inner["kind"]:
        return False
    return outer["kind"] == "model" or outer.get("tool") == inner.get("tool")


def _rank(facts: Facts) -> tuple[int, int]:
    messages = facts.get("messages")
    return _richness(facts), len(messages) if isinstance(messages, list) else 0


def _richness(facts: Facts) -> int:
    weights = {"messages": 1, "content": 1, "calls": 2, "arguments": 1, "result": 1}
    return sum(w for k, w in weights.items() if not blank(facts.get(k)))


def _where(span: Span) -> dict[str, Any]:
    return {
        "timestamp": span.start,
        "duration_ms": span.duration_ms,
        "parent": span.parent_id,
    }


def _event(
    span: Span,
    facts: Facts,
    conventions: Sequence[Convention],
    others: list[tuple[Span, Facts]] | None,
) -> dict[str, Any] | None:
    extra = {"span_id": span.span_id, "span_name": span.name, **_leftover(span, conventions)}
    merged = []
    for other, other_facts in others or []:
        fill(facts, other_facts)
        merged.append(
            {"span_id": other.span_id, "span_name": other.name, **_leftover(other, conventions)}
        )
    if merged:  # the other spans of this one call: their leftovers stay visible
        extra["merged_spans"] = merged
    if facts.get("requested_model"):
        extra["requested_model"] = facts["requested_model"]
    if facts["kind"] == "model":
        return model_event(
            facts.get("model"),
            facts.get("messages") or [],
            facts.get("content"),
            facts.get("calls") or [],
            tools=facts.get("tools"),
            temperature=facts.get("temperature"),
            params=facts.get("params"),
            finish_reason=facts.get("finish_reason"),
            usage=facts.get("usage"),
            node=facts.get("agent"),
            extra=extra,
            **_where(span),
        )
    if facts["kind"] == "tool" and facts.get("tool"):
        return tool_event(
            str(facts["tool"]),
            opt_id(facts.get("call_id")),
            arguments(facts.get("arguments")),
            facts.get("result", ABSENT),
            error=exception_of(span) or facts.get("error"),
            stack=stack_of(span),
            node=facts.get("agent"),
            extra=extra,
            **_where(span),
        )
    return None


def _leftover(span: Span, conventions: Sequence[Convention]) -> dict[str, Any]:
    prefixes = [p for cv in conventions for p in cv.prefixes]
    rest = take(span.attributes, *prefixes)
    out: dict[str, Any] = {"attributes": rest} if rest else {}
    others = [
        {"name": e.name, "time": e.time, "attributes": e.attributes}
        for e in span.events
        if e.name != "exception"
    ]
    if others:
        out["span_events"] = others
    return out


def _summary(span: Span) -> dict[str, Any]:
    out: dict[str, Any] = {"name": span.name, "span_id": span.span_id, "parent": span.parent_id}
    out["start"] = span.start
    if span.attributes:
        out["attributes"] = span.attributes
    if span.io:
        out["io"] = {k: v for k, v in span.io.items() if v is not None}
    return out


def _assemble(
    spans: list[Span],
    facts: dict[str, Facts],
    events: list[dict[str, Any]],
    run: TraceHeader,
    unmapped: list[dict[str, Any]],
) -> dict[str, Any]:
    agents = [f for s in spans if (f := facts[s.span_id])["kind"] == "agent"]
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if s.parent_id not in ids]
    failed = any(exception_of(s) is not None for s in roots) or any(
        e["type"] == "error" for e in events
    )
    output = next((a["output"] for a in agents if a.get("output") is not None), ABSENT)
    answer = last_answer(events)
    named = next((a["agent"] for a in agents if a.get("agent")), None)
    named = named or next((f["agent"] for f in facts.values() if f.get("agent")), None)
    agent = {**run.agent, "name": named or run.agent.get("name")}
    extra = dict(run.extra)
    if unmapped:
        extra["other_spans"] = unmapped
    return trace_body(
        events,
        started_at=spans[0].start if spans else None,
        agent=agent,
        user_message=first_user_text(events) or _agent_input(agents),
        terminal=terminal_from(events, failed, answer if answer is not None else output),
        extra=extra,
    )


def _agent_input(agents: list[Facts]) -> str | None:
    for agent in agents:
        value = agent.get("input")
        if isinstance(value, str):
            return value
    return None
