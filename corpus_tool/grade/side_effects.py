"""`expect.side_effects`: exactly N effects of each listed kind (from `side_effect` events)."""

from __future__ import annotations

from corpus_tool.grade.registry import Check, TableGrader
from corpus_tool.grade.result import from_problems
from corpus_tool.grade.view import RunView, plural
from corpus_tool.model.checks import CheckResult
from corpus_tool.model.cut import CutShort
from corpus_tool.model.events import SideEffectEvent
from corpus_tool.model.expected import SideEffectCount


def count(spec: tuple[SideEffectCount, ...], run: RunView) -> CheckResult:
    """For each `{type, count}`, the run produced exactly `count` effects of that kind."""
    effects = list(run.trajectory.of_type(SideEffectEvent))
    problems, seen, counts = [], [], {}
    for item in spec:
        kind, want = item.type, item.count
        at = [e.seq for e in effects if e.kind == kind]
        where = f" (seq {', '.join(map(str, at))})" if at else ""
        counts[kind] = len(at)
        seen.append(f"{kind}: {plural(len(at), 'effect')}{where}")
        if len(at) != want:
            problems.append(f"{kind}: {plural(len(at), 'effect')}{where}, expected exactly {want}")
    ok = "; ".join(seen) or "no counts listed"
    return from_problems("side_effects.count", problems, ok, counts=counts)


def _count_open(
    spec: tuple[SideEffectCount, ...], run: RunView, cut: CutShort, passed: bool
) -> bool:
    """Effects only add up (the agent emits them): too many is final, too few or exact is not."""
    effects = [e.kind for e in run.trajectory.of_type(SideEffectEvent)]
    return all(effects.count(item.type) <= item.count for item in spec)


GRADER = TableGrader("side_effects", (Check(None, "side_effects.count", count, _count_open),))
