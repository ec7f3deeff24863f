"""What changed between two runs (A, then B): aligned steps, tools, arguments, errors, side
effects, egress, terminal status and the entities of the final output."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from corpus_tool.compare import steps
from corpus_tool.compare.align import align
from corpus_tool.compare.entities import Entity, entities
from corpus_tool.model.diff import FieldDiff, field_diff
from corpus_tool.model.events import (
    Event,
    ModelCallEvent,
    SideEffectEvent,
    ToolCallEvent,
    error_types,
)
from corpus_tool.model.trace import Trajectory
from corpus_tool.replay.sequence import describe

TIERS = {
    "succeeded": 2,
    "submitted": 2,
    "needs_human": 1,
    "rejected": 1,
    "failed": 0,
    "unknown": 0,
    "step_limit": 0,
}
"""How good an ending is: done, handed on, not done. Lower on B than on A is worse."""


@dataclass(frozen=True)
class Step:
    """One aligned step that is not the same on both sides."""

    number: int  # 1-based position in the alignment
    change: str  # changed | dropped (only in A) | added (only in B)
    a_seq: int | None
    b_seq: int | None
    a: str | None  # one line describing A's event
    b: str | None
    diffs: tuple[FieldDiff, ...] = ()
    wording: bool = False
    """Only text differs (a model call's messages or answer)."""

    @property
    def tool(self) -> str | None:
        """The tool this step calls (the `tool_call` lines name it)."""
        line = self.a or self.b or ""
        return line.split()[1].split("(")[0] if line.startswith("tool_call ") else None


@dataclass(frozen=True)
class PairDiff:
    """Everything that differs between run A and run B."""

    steps: tuple[Step, ...]
    tools_dropped: tuple[str, ...]
    tools_added: tuple[str, ...]
    tools_reordered: tuple[str, ...]
    tool_calls: tuple[int, int]
    errors_new: tuple[str, ...]
    errors_gone: tuple[str, ...]
    side_effects: tuple[tuple[str, int, int], ...]  # kind, count in A, count in B (differing)
    egress_added: tuple[str, ...]
    egress_gone: tuple[str, ...]
    terminal: tuple[str, str]
    output_changed: bool
    entities_lost: tuple[Entity, ...]

    @property
    def first(self) -> Step | None:
        """The first step where the runs diverge."""
        return self.steps[0] if self.steps else None

    @property
    def identical(self) -> bool:
        """No step and no ending differs."""
        return not self.steps and not self.output_changed and self.terminal[0] == self.terminal[1]

    @property
    def worse_ending(self) -> bool:
        """B ended in a lower tier than A (done > handed on > not done)."""
        return TIERS.get(self.terminal[1], 0) < TIERS.get(self.terminal[0], 0)


def compare(a: Trajectory, b: Trajectory, ignored: Sequence[str] = ()) -> PairDiff:
    """The diff of two trajectories, steps aligned by LCS on (kind, tool / type / kind)."""
    pairs = align([steps.key(e) for e in a.events], [steps.key(e) for e in b.events])
    changed = tuple(
        s
        for n, (i, j) in enumerate(pairs, 1)
        if (s := _step(n, _at(a.events, i), _at(b.events, j), ignored)) is not None
    )
    ends = (steps.terminal_doc(a.terminal, ignored), steps.terminal_doc(b.terminal, ignored))
    tools_a, tools_b = _tools(a.events), _tools(b.events)
    errors_a, errors_b = set(error_types(a.events)), set(error_types(b.events))
    egress_a, egress_b = _egress(a.events), _egress(b.events)
    lost = _lost(a, b) if "output" in ends[0] else ()
    return PairDiff(
        steps=changed,
        tools_dropped=tuple(sorted(set(tools_a) - set(tools_b))),
        tools_added=tuple(sorted(set(tools_b) - set(tools_a))),
        tools_reordered=_reordered(changed),
        tool_calls=(sum(tools_a.values()), sum(tools_b.values())),
        errors_new=tuple(sorted(errors_b - errors_a)),
        errors_gone=tuple(sorted(errors_a - errors_b)),
        side_effects=_effects(a.events, b.events),
        egress_added=tuple(sorted(egress_b - egress_a)),
        egress_gone=tuple(sorted(egress_a - egress_b)),
        terminal=(a.terminal.status, b.terminal.status),
        output_changed=ends[0].get("output") != ends[1].get("output"),
        entities_lost=lost,
    )


def _at(events: Sequence[Event], index: int | None) -> Event | None:
    return None if index is None else events[index]


def _step(number: int, a: Event | None, b: Event | None, ignored: Sequence[str]) -> Step | None:
    if a is None or b is None:
        change = "dropped" if b is None else "added"
        return Step(number, change, _seq(a), _seq(b), _line(a), _line(b))
    left, right = steps.compared(a, ignored), steps.compared(b, ignored)
    if _attempted(a) or _attempted(b):  # no answer came: only the call itself compares
        left, right = _call_only(left), _call_only(right)
    found = field_diff(left, right)
    if not found:
        return None
    wording = isinstance(a, ModelCallEvent) and all(steps.is_wording(d.path) for d in found)
    return Step(number, "changed", a.seq, b.seq, _line(a), _line(b), tuple(found), wording)


def _call_only(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k in ("tool", "arguments")}


def _seq(event: Event | None) -> int | None:
    return None if event is None else event.seq


def _line(event: Event | None) -> str | None:
    if event is None:
        return None
    attempted = " (attempted: the replay stopped here)" if _attempted(event) else ""
    return describe(event) + attempted


def _attempted(event: Event) -> bool:
    return bool(event.extra and event.extra.get("attempted"))


def _tools(events: Sequence[Event]) -> Counter[str]:
    return Counter(e.tool for e in events if isinstance(e, ToolCallEvent))


def _egress(events: Sequence[Event]) -> set[str]:
    return {e.egress for e in events if isinstance(e, ToolCallEvent) and e.egress}


def _effects(a: Sequence[Event], b: Sequence[Event]) -> tuple[tuple[str, int, int], ...]:
    count_a = Counter(e.kind for e in a if isinstance(e, SideEffectEvent))
    count_b = Counter(e.kind for e in b if isinstance(e, SideEffectEvent))
    kinds = sorted(set(count_a) | set(count_b))
    return tuple((k, count_a[k], count_b[k]) for k in kinds if count_a[k] != count_b[k])


def _reordered(changed: Sequence[Step]) -> tuple[str, ...]:
    """Tools called on both sides at steps the alignment could not match: moved."""
    dropped = {s.tool for s in changed if s.change == "dropped" and s.tool}
    added = {s.tool for s in changed if s.change == "added" and s.tool}
    return tuple(sorted(dropped & added))


def _lost(a: Trajectory, b: Trajectory) -> tuple[Entity, ...]:
    kept = {e.key for e in entities(b.terminal.output)}
    return tuple(e for e in entities(a.terminal.output) if e.key not in kept)
