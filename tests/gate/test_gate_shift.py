"""The live gate's distribution shift is `corpus diff`'s: over seeded attempts (tools called
or not, repeated, statuses, attempts that did not run, cases on one side only), the gate's
direct count equals diff.suites.compare_suites over the same attempt pairs."""

from __future__ import annotations

import random

from corpus_tool.diff.inputs import CaseRun, Run, Suite
from corpus_tool.diff.suites import compare_suites
from corpus_tool.gate.shift import shift_of
from corpus_tool.model.events import ToolCallEvent
from corpus_tool.model.results import AttemptRun, CaseOutcome, Results, Verdict
from corpus_tool.model.trace import Terminal, Trajectory

TOOLS = ("get_order", "create_refund", "check_refund")
STATUSES = ("submitted", "failed", "succeeded")


def _trajectory(rng: random.Random) -> Trajectory | None:
    if rng.random() < 0.1:
        return None  # the attempt did not run (an error)
    events = tuple(
        ToolCallEvent(seq=n + 1, tool=rng.choice(TOOLS)) for n in range(rng.randrange(4))
    )
    return Trajectory(events, Terminal(rng.choice(STATUSES)))


def _results(rng: random.Random, cases: list[str]) -> Results:
    outcomes = []
    for case in cases:
        runs = tuple(
            AttemptRun(i, Verdict.PASSED, trajectory=_trajectory(rng))
            for i in range(rng.choice((1, 3, 10)))
        )
        kept = runs if len(runs) > 1 else ()  # one attempt: the case's own trajectory
        outcomes.append(CaseOutcome(case, Verdict.PASSED, trajectory=runs[0].trajectory, runs=kept))
    return Results("check", "shift", "0", {}, tuple(outcomes))


def _suite(results: Results) -> Suite:
    """corpus diff's suite of every attempt as a run of its own (`case#i`)."""
    runs = {}
    for case in results.cases:
        kept = [r.trajectory for r in case.runs] or [case.trajectory]
        for index, trajectory in enumerate(kept):
            run = Run(trajectory, case.case) if trajectory is not None else None
            runs[f"{case.case}#{index}"] = CaseRun(case.verdict, run)
    return Suite(runs, results)


def _only(results: Results, cases: set[str]) -> Results:
    return Results("check", "shift", "0", {}, tuple(c for c in results.cases if c.case in cases))


def test_the_gate_shift_equals_corpus_diffs_over_the_same_attempt_pairs() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        base = _results(rng, [f"c{i}" for i in range(8)])
        head = _results(rng, [f"c{i}" for i in range(2, 10)])
        chosen = {f"c{i}" for i in range(10) if rng.random() < 0.8}
        expected = compare_suites(_suite(_only(base, chosen)), _suite(_only(head, chosen))).shift
        assert shift_of(base, head, chosen) == expected, seed
        assert expected.compared > 0
