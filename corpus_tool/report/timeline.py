"""A run's timeline for the report: the steps of two runs aligned as `corpus diff` aligns them
(LCS on kind and tool), each row with both events, the fields that differ, and marks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from corpus_tool.diff import steps
from corpus_tool.diff.align import align
from corpus_tool.diff.render_json import field_data
from corpus_tool.model.events import Event, ModelCallEvent, ToolCallEvent
from corpus_tool.model.field_diff import field_diff
from corpus_tool.model.trace import Trajectory

CALLS = (ModelCallEvent, ToolCallEvent)


def rows(left: Trajectory | None, right: Trajectory, divergence_step: int | None) -> list[Any]:
    """The aligned steps; a row the same on both sides carries the event once (`same`).

    With no left run (a passing case: its recording is not loaded) every row is the right's.
    `divergence_step` (the replay's 1-based model/tool call number) marks that row."""
    marked = _call_index(right.events, divergence_step)
    if left is None:
        return [_row(n, "run", None, e, i == marked) for n, (i, e) in _numbered(right.events)]
    pairs = align([steps.key(e) for e in left.events], [steps.key(e) for e in right.events])
    out = []
    for n, (i, j) in enumerate(pairs, 1):
        a = left.events[i] if i is not None else None
        b = right.events[j] if j is not None else None
        out.append(_pair_row(n, a, b, j is not None and j == marked))
    return out


def ending(left: Trajectory | None, right: Trajectory) -> dict[str, Any]:
    """Each side's terminal (status, output) and whether they differ."""
    b = right.terminal.to_doc()
    a = left.terminal.to_doc() if left is not None else None
    return {"a": a, "b": b, "changed": a is not None and a != b}


def _numbered(events: Sequence[Event]) -> list[tuple[int, tuple[int, Event]]]:
    return [(n, (i, e)) for n, (i, e) in enumerate(enumerate(events), 1)]


def _call_index(events: Sequence[Event], step: int | None) -> int | None:
    """The index of the step-th model or tool call (divergence steps count calls only)."""
    if step is None:
        return None
    calls = [i for i, e in enumerate(events) if isinstance(e, CALLS)]
    if 1 <= step <= len(calls):
        return calls[step - 1]
    return len(events) - 1 if events else None


def _row(n: int, change: str, a: Event | None, b: Event | None, mark: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"n": n, "change": change}
    if a is not None:
        row["a"] = a.to_doc()
    if b is not None:
        row["b"] = b.to_doc()
    if mark:
        row["divergence"] = True
    return row


def _pair_row(n: int, a: Event | None, b: Event | None, mark: bool) -> dict[str, Any]:
    if a is None or b is None:
        return _row(n, "dropped" if b is None else "added", a, b, mark)
    found = field_diff(steps.compared(a, ()), steps.compared(b, ()))
    if not found:
        return _row(n, "same", None, b, mark)
    row = _row(n, "changed", a, b, mark)
    row["diff"] = [_plain(field_data(d)) for d in found]
    return row


def _plain(data: Mapping[str, Any]) -> dict[str, Any]:
    return dict(data)
