"""Whole runs of a corpus compared (a base and a head, a primary and a shadow): a verdict per
case and the shift of the distribution (tool calls, tools dropped or added, terminal statuses)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from corpus_tool.diff.inputs import Run, Suite
from corpus_tool.diff.pair import PairDiff, compare
from corpus_tool.diff.verdict import VERDICTS, DiffVerdict, with_judge

Ask = Callable[[Run, Run, PairDiff], "str | None"]
"""The judge's opinion on one pair (None: no judge)."""


@dataclass(frozen=True)
class CaseDiff:
    """One case's verdict, and its diff when both runs are there to compare."""

    case: str
    verdict: DiffVerdict
    diff: PairDiff | None = None


@dataclass(frozen=True)
class Shift:
    """How the distribution moved from base to head, over the cases both ran."""

    compared: int
    tool_calls: tuple[int, int]
    dropped: Mapping[str, int]  # tool -> cases where head no longer calls it
    added: Mapping[str, int]  # tool -> cases where head newly calls it
    terminal: Mapping[str, tuple[int, int]]  # status -> (cases in base, cases in head)

    def per_case(self) -> tuple[float, float]:
        """Mean tool calls per compared case, base and head."""
        n = max(self.compared, 1)
        return (round(self.tool_calls[0] / n, 2), round(self.tool_calls[1] / n, 2))


@dataclass(frozen=True)
class SuiteDiff:
    """Per-case verdicts, sorted by case id, and the shift."""

    cases: tuple[CaseDiff, ...]
    shift: Shift
    not_compared: tuple[str, ...]

    def counts(self) -> dict[str, int]:
        """How many cases got each verdict."""
        seen = Counter(c.verdict.verdict for c in self.cases)
        return {v: seen.get(v, 0) for v in VERDICTS}

    @property
    def worst(self) -> str:
        """The run's verdict: its worst case's."""
        found = [c.verdict.verdict for c in self.cases] or ["identical"]
        return max(found, key=VERDICTS.index)


def compare_suites(
    base: Suite, head: Suite, ignored: Sequence[str] = (), ask: Ask | None = None
) -> SuiteDiff:
    """Each case of either run, compared where both ran it."""
    out, pairs, skipped = [], [], []
    for case in sorted(set(base.cases) | set(head.cases)):
        a, b = base.cases.get(case), head.cases.get(case)
        run_a, run_b = (a.run if a else None), (b.run if b else None)
        if run_a is not None and run_b is not None:
            diff = compare(run_a.trajectory, run_b.trajectory, ignored)
            said = ask(run_a, run_b, diff) if ask is not None and not diff.identical else None
            out.append(CaseDiff(case, with_judge(diff, said), diff))
            pairs.append(diff)
        elif run_a is not None:
            why = "missing from head" if b is None else f"did not run on head ({b.verdict})"
            out.append(CaseDiff(case, DiffVerdict("regression", (why,))))
        elif run_b is not None:
            why = "new in head" if a is None else f"did not run on base ({a.verdict})"
            out.append(CaseDiff(case, DiffVerdict("changed", (why,))))
        else:
            skipped.append(case)
    return SuiteDiff(tuple(out), _shift(pairs), tuple(skipped))


def _shift(pairs: Sequence[PairDiff]) -> Shift:
    dropped = Counter(t for p in pairs for t in p.tools_dropped)
    added = Counter(t for p in pairs for t in p.tools_added)
    ends_a = Counter(p.terminal[0] for p in pairs)
    ends_b = Counter(p.terminal[1] for p in pairs)
    statuses = sorted(set(ends_a) | set(ends_b))
    return Shift(
        compared=len(pairs),
        tool_calls=(sum(p.tool_calls[0] for p in pairs), sum(p.tool_calls[1] for p in pairs)),
        dropped=dict(sorted(dropped.items())),
        added=dict(sorted(added.items())),
        terminal={s: (ends_a[s], ends_b[s]) for s in statuses},
    )
