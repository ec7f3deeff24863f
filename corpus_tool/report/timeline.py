"""A run's timeline for the report: the steps of two runs aligned as `corpus diff` aligns them
(LCS on kind and tool), each row with both events, the fields that differ, and marks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from corpus_tool.diff import steps
from corpus_tool.diff.align import align
from corpus_tool.diff.render_json import field_data
from corpus_tool.model.events import Event, ModelCallEvent, ToolCallEvent
from corpus_tool.model.field_diff import field_diff
from corpus_tool.model.json import Json, JsonObject
from corpus_tool.model.trace import Trajectory

CALLS = (ModelCallEvent, ToolCallEvent)


@dataclass(frozen=True)
class FailingCheck:
    """The first failed check of a run that did not diverge, and the seq its message names
    (`... at seq 4`): the row of the right run's event of that seq is marked with it."""

    name: str
    seq: int


def rows(
    left: Trajectory | None,
    right: Trajectory,
    divergence_step: int | None,
    failing: FailingCheck | None = None,
) -> list[JsonObject]:
    """The aligned steps; a row the same on both sides carries the event once (`same`).

    With no left run (a passing case: its recording is not loaded) every row is the right's.
    `divergence_step` (the replay's 1-based model/tool call number) marks that row; without
    one, `failing` marks the first row whose right event has its seq."""
    marked = _call_index(right.events, divergence_step)
    if left is None:
        pairs: list[tuple[int | None, int | None]] = [(None, j) for j in range(len(right.events))]
    else:
        keys = [steps.key(e) for e in left.events], [steps.key(e) for e in right.events]
        pairs = list(align(*keys))
    out = []
    for n, (i, j) in enumerate(pairs, 1):
        a = left.events[i] if left is not None and i is not None else None
        b = right.events[j] if j is not None else None
        mark = j is not None and j == marked
        out.append(_row(n, "run", None, b, mark) if left is None else _pair_row(n, a, b, mark))
    if divergence_step is None and failing is not None:
        _mark_failing(out, pairs, right.events, failing)
    return out


def ending(left: Trajectory | None, right: Trajectory) -> JsonObject:
    """Each side's terminal (status, output) and whether they differ."""
    b: JsonObject = right.terminal.to_doc()
    a: JsonObject | None = left.terminal.to_doc() if left is not None else None
    return {"a": a, "b": b, "changed": a is not None and a != b}


def _call_index(events: Sequence[Event], step: int | None) -> int | None:
    """The index of the step-th model or tool call (divergence steps count calls only)."""
    if step is None:
        return None
    calls = [i for i, e in enumerate(events) if isinstance(e, CALLS)]
    if 1 <= step <= len(calls):
        return calls[step - 1]
    return len(events) - 1 if events else None


def _mark_failing(
    out: list[JsonObject],
    pairs: Sequence[tuple[int | None, int | None]],
    events: Sequence[Event],
    failing: FailingCheck,
) -> None:
    """The first row whose right event has the failing check's seq carries its name."""
    for row, (_, j) in zip(out, pairs, strict=True):
        if j is not None and events[j].seq == failing.seq:
            row["failing_check"] = failing.name
            return


def _row(n: int, change: str, a: Event | None, b: Event | None, mark: bool) -> JsonObject:
    row: JsonObject = {"n": n, "change": change}
    if a is not None:
        row["a"] = a.to_doc()
    if b is not None:
        row["b"] = b.to_doc()
    if mark:
        row["divergence"] = True
    return row


def _pair_row(n: int, a: Event | None, b: Event | None, mark: bool) -> JsonObject:
    if a is None or b is None:
        return _row(n, "dropped" if b is None else "added", a, b, mark)
    found = field_diff(steps.compared(a, ()), steps.compared(b, ()))
    if not found:
        return _row(n, "same", None, b, mark)
    row = _row(n, "changed", a, b, mark)
    diff: list[Json] = [field_data(d) for d in found]
    row["diff"] = diff
    return row
