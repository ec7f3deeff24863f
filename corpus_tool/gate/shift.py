"""The distribution shift of the live cases, as `corpus diff` computes it for two results
documents: tool calls per attempt, the tools head dropped or added, the terminal statuses,
over every attempt kept (`runs`; a case run once: its `trajectory`)."""

from __future__ import annotations

from collections.abc import Collection

from corpus_tool.diff.inputs import CaseRun, Suite, replayed
from corpus_tool.diff.suites import Shift, compare_suites
from corpus_tool.model.json import Json, JsonObject
from corpus_tool.model.results import Results


def shift_of(base: Results, head: Results, cases: Collection[str]) -> Shift:
    """`corpus diff BASE.json HEAD.json`'s shift over `cases`."""
    return compare_suites(_suite(base, cases), _suite(head, cases)).shift


def _suite(results: Results, cases: Collection[str]) -> Suite:
    """Each attempt of each case as a run of its own (`case#i`, attempt i of one side
    against attempt i of the other): the shift is then over every attempt, not one."""
    runs: dict[str, CaseRun] = {}
    for case in results.cases:
        if case.case not in cases:
            continue
        attempts = [(r.verdict, r.trajectory, r.error) for r in case.runs] or [
            (case.verdict, case.trajectory, case.error)
        ]
        for index, (verdict, trajectory, error) in enumerate(attempts):
            name = f"{case.case}#{index}"
            run = replayed(trajectory, None, case.case) if trajectory is not None else None
            runs[name] = CaseRun(verdict, run, error)
    return Suite(runs, results)


def shift_lines(shift: Shift) -> list[str]:
    """The shift in a few lines of text."""
    if not shift.compared:
        return []
    base, head = shift.per_case()
    lines = [
        f"distribution shift over {shift.compared} attempt pair(s) of the live cases: "
        f"{base} tool calls per attempt on base, {head} on head"
    ]
    lines += [f"  ended {s}: base {a}, head {b}" for s, (a, b) in shift.terminal.items()]
    lines += [f"  attempts dropping {t}: {n}" for t, n in shift.dropped.items()]
    lines += [f"  attempts adding {t}: {n}" for t, n in shift.added.items()]
    return lines


def shift_doc(shift: Shift) -> JsonObject:
    terminal: dict[str, Json] = {s: [a, b] for s, (a, b) in shift.terminal.items()}
    return {
        "compared": shift.compared,
        "tool_calls": list[Json](shift.tool_calls),
        "dropped": dict[str, Json](shift.dropped),
        "added": dict[str, Json](shift.added),
        "terminal": terminal,
    }
