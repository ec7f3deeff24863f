"""Steps as a comparison sees them: a key to align on, and the fields that are compared.

Identity and timing fields (seq, a retry's `of`, timestamps, durations, call ids, nodes, extra,
usage) differ between any two runs without the behaviour differing, so they are never compared;
`--ignore` removes more. A bare name (`idempotency_key`) is ignored at any depth, a dotted path
(`arguments.note`, `request.messages.*.content`) exactly there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from corpus_tool.model.events import (
    ErrorEvent,
    Event,
    HandoffEvent,
    ModelCallEvent,
    SideEffectEvent,
    StateChangeEvent,
    ToolCallEvent,
)
from corpus_tool.model.json import Json, JsonObject
from corpus_tool.model.trace import Terminal
from corpus_tool.replay.matching import normalize

NEVER_COMPARED = (
    "seq",
    "of",  # a retry's: the seq of what it retries
    "timestamp",
    "duration_ms",
    "parent",
    "node",
    "call_id",
    "extra",
    "usage",
)
WORDING = ("$.request.messages", "$.response.content")
"""Paths under which a model call's difference is wording: what was said, not done."""


def key(event: Event) -> tuple[str, ...]:
    """What two steps must share to be aligned as one step: the kind and what it acts on."""
    if isinstance(event, ToolCallEvent):
        return ("tool_call", event.tool)
    if isinstance(event, ErrorEvent):
        return ("error", event.error.type)
    if isinstance(event, SideEffectEvent):
        return ("side_effect", event.kind)
    if isinstance(event, StateChangeEvent):
        return ("state_change", event.key)
    if isinstance(event, HandoffEvent):
        return ("handoff", event.to)
    return (event.type,)


def compared(event: Event, ignored: Iterable[str]) -> JsonObject:
    """The event's fields that a comparison looks at."""
    doc: JsonObject = {k: v for k, v in event.to_doc().items() if k not in NEVER_COMPARED}
    if isinstance(event, ModelCallEvent):
        _without_call_ids(doc["response"])  # a model's call ids are fresh in every run
    return drop(doc, ignored)


def _without_call_ids(response: Json) -> None:
    calls = response.get("tool_calls") if isinstance(response, dict) else None
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            call.pop("id", None)


def terminal_doc(terminal: Terminal, ignored: Iterable[str]) -> JsonObject:
    """The terminal as compared: status and output (`--ignore output` drops the output)."""
    return drop({"status": terminal.status, "output": terminal.output}, ignored)


def drop(doc: JsonObject, ignored: Iterable[str]) -> JsonObject:
    """`doc` without the ignored fields."""
    for name in ignored:
        doc = normalize(doc, [name]) if "." in name else _without(doc, name)
    return doc


def _without(doc: JsonObject, name: str) -> JsonObject:
    return {k: _without_anywhere(v, name) for k, v in doc.items() if k != name}


def _without_anywhere(value: Json, name: str) -> Json:
    if isinstance(value, Mapping):
        return _without(value, name)
    if isinstance(value, list):
        return [_without_anywhere(v, name) for v in value]
    return value


def is_wording(path: str) -> bool:
    """Whether a differing field of a model call is only text the model read or wrote."""
    return any(path == p or path.startswith((p + ".", p + "[")) for p in WORDING)
