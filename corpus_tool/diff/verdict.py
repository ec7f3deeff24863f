"""The one-line verdict on a diff, by the rules of the README's table, and a judge's part in it.

Structural signals decide; a judge (any scorer registered in corpus.yaml) is never trusted
alone: it confirms a structural regression (`wrong`), or flags a run with no structural loss
for review (`worse` or `wrong` give `warning`, which never blocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from corpus_tool.diff.pair import PairDiff

Severity = Literal["identical", "benign", "changed", "warning", "regression"]
"""How much a difference matters; a diff's `regression` is a structural loss between two runs
(not the gate's, which is a case that passed on the base and fails now)."""
VERDICTS: tuple[Severity, ...] = ("identical", "benign", "changed", "warning", "regression")
"""From no difference to a block; only `regression` fails a command (exit 1)."""
OPINIONS = ("better", "same", "worse", "wrong")


@dataclass(frozen=True)
class DiffVerdict:
    """The verdict on a diff, the reasons behind it, and the judge's opinion if one was asked."""

    verdict: Severity
    reasons: tuple[str, ...]
    judge: str | None = None

    @property
    def blocks(self) -> bool:
        """Only a regression fails the command."""
        return self.verdict == "regression"


def losses(diff: PairDiff) -> list[str]:
    """The structural regression signals: a changed write, lost tool, lost entity, worse
    ending, new error."""
    found = []
    if diff.tools_dropped:
        found.append(f"tool(s) no longer called: {', '.join(diff.tools_dropped)}")
    if diff.entities_lost:
        shown = ", ".join(e.text for e in diff.entities_lost)
        found.append(f"the output lost {shown}")
    if diff.worse_ending:
        found.append(f"worse ending: {diff.terminal[0]} -> {diff.terminal[1]}")
    if diff.errors_new:
        found.append(f"new error(s): {', '.join(diff.errors_new)}")
    return found + [w.text() for w in diff.writes]


def structural(diff: PairDiff) -> DiffVerdict:
    """The verdict without a judge."""
    if diff.identical:
        return DiffVerdict("identical", ())
    lost = losses(diff)
    if lost:
        return DiffVerdict("regression", tuple(lost))
    if all(s.wording for s in diff.steps) and diff.terminal[0] == diff.terminal[1]:
        return DiffVerdict("benign", ("only wording differs",))
    return DiffVerdict("changed", tuple(_changes(diff)))


def with_judge(diff: PairDiff, opinion: str | None) -> DiffVerdict:
    """The structural verdict, combined with the judge's opinion (None: no judge asked)."""
    base = structural(diff)
    if opinion is None or base.verdict == "identical":
        return base
    if base.verdict == "regression":
        agree = "; the judge agrees: wrong" if opinion == "wrong" else f"; the judge says {opinion}"
        return DiffVerdict("regression", (*base.reasons[:-1], base.reasons[-1] + agree), opinion)
    if opinion in ("worse", "wrong"):
        why = f"the judge says {opinion}, with no structural loss: review it (never a block)"
        return DiffVerdict("warning", (*base.reasons, why), opinion)
    return DiffVerdict(base.verdict, base.reasons, opinion)


def _changes(diff: PairDiff) -> list[str]:
    out = []
    if diff.tools_added:
        out.append(f"tool(s) added: {', '.join(diff.tools_added)}")
    if diff.tools_reordered:
        out.append(f"tool(s) reordered: {', '.join(diff.tools_reordered)}")
    args = sum(1 for s in diff.steps if s.change == "changed" and not s.wording)
    if args:
        out.append(f"{args} step(s) with other arguments or results")
    moved = sum(1 for s in diff.steps if s.change != "changed")
    if moved:
        out.append(f"{moved} step(s) only on one side")
    if diff.errors_gone:
        out.append(f"error(s) gone: {', '.join(diff.errors_gone)}")
    if diff.terminal[0] != diff.terminal[1]:
        out.append(f"ending {diff.terminal[0]} -> {diff.terminal[1]}")
    return out or ["a different path, the same outcome"]
