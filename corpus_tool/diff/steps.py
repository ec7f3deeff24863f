"""Steps as a comparison sees them: a key to align on, and the fields that are compared.

Identity and timing fields (seq, a retry's `of`, timestamps, durations, call ids, nodes, extra,
usage) differ between any two runs without the behaviour differing, so they are never compared;
`--ignore` removes more. A bare name (`idempotency_key`) is ignored at any depth, a dotted path
(`arguments.note`, `request.messages.*.content`) exactly there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from corpus_tool.model.events import (
    ErrorEvent,
    Event,
    HandoffEvent,
    ModelCallEvent,
    SideEffectEvent,
    StateChangeEvent,
    ToolCallEvent,
)
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


def compared(event: Event, ignored: Iterable[str]) -> dict[str, Any]:
    """The event's fields that a comparison looks at."""
    doc = {k: v for k, v in event.to_doc().items() if k not in NEVER_COMPARED}
    if isinstance(event, ModelCallEvent):
        for call in doc["response"].get("tool_calls") or []:
            call.pop("id", None)  # a model's call ids are fresh in every run
    out: dict[str, Any] = drop(doc, ignored)
    return out


def terminal_doc(terminal: Terminal, ignored: Iterable[str]) -> dict[str, Any]:
    """The terminal as compared: status and output (`--ignore output` drops the output)."""
    out: dict[str, Any] = drop({"status": terminal.status, "output": terminal.output}, ignored)
    return out


def drop(value: Any, ignored: Iterable[str]) -> Any:
    """`value` without the ignored fields."""
    for name in ignored:
        value = normalize(value, [name]) if "." in name else _without(value, name)
    return value


def _without(value: Any, name: str) -> Any:
    if isinstance(value, Mapping):
        return {k: _without(v, name) for k, v in value.items() if k != name}
    if isinstance(value, list):
        return [_without(v, name) for v in value]
    return value


def is_wording(path: str) -> bool:
    """Whether a differing field of a model call is only text the model read or wrote."""
    return any(path == p or path.startswith((p + ".", p + "[")) for p in WORDING)
