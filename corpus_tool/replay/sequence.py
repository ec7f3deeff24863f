"""The event-sequence diff between a recording and its replay, one line per event."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from corpus_tool.files import canonical_json


def describe(event: Mapping[str, Any]) -> str:
    """One stable line for an event, without seq numbers or timestamps."""
    kind = event.get("type")
    if kind == "model_call":
        response = event.get("response") or {}
        calls = [c.get("name") for c in response.get("tool_calls") or []]
        said = f"asks {', '.join(map(str, calls))}" if calls else "answers"
        return f"model_call -> {said}"
    if kind == "tool_call":
        outcome = f"error {event['error'].get('type')}" if event.get("error") else "result"
        return f"tool_call {event.get('tool')}({_compact(event.get('arguments'))}) -> {outcome}"
    if kind == "error":
        return f"error {(event.get('error') or {}).get('type')}"
    if kind == "side_effect":
        return f"side_effect {event.get('kind')} {event.get('target') or ''}".rstrip()
    if kind == "retry":
        return f"retry attempt {event.get('attempt')}"
    if kind == "state_change":
        return f"state_change {event.get('key')}"
    if kind == "handoff":
        return f"handoff {event.get('from')} -> {event.get('to')}"
    return str(kind)


def sequence_diff(
    trace: Mapping[str, Any],
    events: Iterable[Mapping[str, Any]],
    terminal: Mapping[str, Any],
    stopped: str | None = None,
) -> list[str]:
    """A unified diff of the recorded and replayed event sequences (terminal included).

    `stopped` names the divergence that stopped the replay; it shows where the run broke off.
    """
    recorded = [describe(e) for e in trace.get("events") or []]
    recorded.append(f"end {(trace.get('terminal') or {}).get('status')}")
    replayed = [describe(e) for e in events]
    if stopped:
        replayed.append(f"stopped by {stopped}")
    replayed.append(f"end {terminal.get('status')}")
    return list(difflib.unified_diff(recorded, replayed, "recording", "replay", lineterm="", n=100))


def _compact(value: Any, limit: int = 60) -> str:
    text = canonical_json(value)[1:-1]
    return text if len(text) <= limit else text[: limit - 3] + "..."
