"""The event-sequence diff between a recording and its replay, one line per event."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from corpus_tool.io.files import canonical_json
from corpus_tool.model.cut import DIVERGED
from corpus_tool.model.events import (
    ErrorEvent,
    Event,
    HandoffEvent,
    ModelCallEvent,
    RetryEvent,
    SideEffectEvent,
    StateChangeEvent,
    ToolCallEvent,
)
from corpus_tool.model.trace import Terminal, Trace


def describe(event: Event) -> str:
    """One stable line for an event, without seq numbers or timestamps."""
    if event.extra and DIVERGED in event.extra:  # the call a divergence stopped
        if isinstance(event, ToolCallEvent):
            return f"tool_call {event.tool}({_compact(event.arguments)}) -> not answered"
        return f"{event.type} -> not answered"
    if isinstance(event, ModelCallEvent):
        calls = [c.name for c in event.response.tool_calls]
        said = f"asks {', '.join(calls)}" if calls else "answers"
        return f"model_call -> {said}"
    if isinstance(event, ToolCallEvent):
        outcome = f"error {event.error.type}" if event.error is not None else "result"
        outcome = outcome if event.answered else "no answer recorded"
        return f"tool_call {event.tool}({_compact(event.arguments)}) -> {outcome}"
    if isinstance(event, ErrorEvent):
        return f"error {event.error.type}"
    if isinstance(event, SideEffectEvent):
        return f"side_effect {event.kind} {event.target or ''}".rstrip()
    if isinstance(event, RetryEvent):
        return f"retry attempt {event.attempt}"
    if isinstance(event, StateChangeEvent):
        return f"state_change {event.key}"
    if isinstance(event, HandoffEvent):
        return f"handoff {event.source} -> {event.to}"
    return str(event.type)


def sequence_diff(
    trace: Trace, events: Iterable[Event], terminal: Terminal, stopped: str | None = None
) -> list[str]:
    """A unified diff of the recorded and replayed event sequences (terminal included).

    `stopped` names the divergence that stopped the replay; it shows where the run broke off.
    """
    recorded = [describe(e) for e in trace.events]
    recorded.append(f"end {trace.terminal.status}")
    replayed = [describe(e) for e in events]
    if stopped:  # the run never reached an ending of its own
        replayed += [f"stopped by {stopped}", "end not reached"]
    else:
        replayed.append(f"end {terminal.status}")
    return list(difflib.unified_diff(recorded, replayed, "recording", "replay", lineterm="", n=100))


def _compact(value: Any, limit: int = 60) -> str:
    text = canonical_json(value)[1:-1]
    return text if len(text) <= limit else text[: limit - 3] + "..."
