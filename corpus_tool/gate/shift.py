"""The distribution shift of the live cases, as `corpus diff` computes it for two results
documents: tool calls per attempt, the tools head dropped or added, the terminal statuses,
over every attempt kept (`runs`; a case run once: its `trajectory`).

Attempt i of a case on base is paired with attempt i on head, and the counts are diff.suites'
`Shift` over those pairs. They are read off each pair's trajectories directly: a shift needs
no step alignment, which is most of what a full pair diff (`compare_suites`) costs, and the
gate pairs 1,000 attempts at 100 cases x 10 (tests/gate/test_gate_shift.py holds the two
equal)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from corpus_tool.diff.pair import tool_counts
from corpus_tool.diff.suites import Shift
from corpus_tool.model.json import Json, JsonObject
from corpus_tool.model.results import Results
from corpus_tool.model.trace import Trajectory


def shift_of(base: Results, head: Results, cases: Collection[str]) -> Shift:
    """`corpus diff BASE.json HEAD.json`'s shift over `cases`, attempt by attempt."""
    before, after = attempts(base, cases), attempts(head, cases)
    dropped: Counter[str] = Counter()
    added: Counter[str] = Counter()
    ends: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
    calls, compared = [0, 0], 0
    for name in sorted(before.keys() & after.keys()):
        a, b = before[name], after[name]
        tools = (tool_counts(a.events), tool_counts(b.events))
        dropped.update(set(tools[0]) - set(tools[1]))
        added.update(set(tools[1]) - set(tools[0]))
        for side, trajectory in enumerate((a, b)):
            calls[side] += sum(tools[side].values())
            ends[side][trajectory.terminal.status] += 1
        compared += 1
    statuses = sorted(set(ends[0]) | set(ends[1]))
    return Shift(
        compared=compared,
        tool_calls=(calls[0], calls[1]),
        dropped=dict(sorted(dropped.items())),
        added=dict(sorted(added.items())),
        terminal={s: (ends[0][s], ends[1][s]) for s in statuses},
    )


def attempts(results: Results, cases: Collection[str]) -> dict[str, Trajectory]:
    """Each replayed attempt of each case in `cases` as a run of its own (`case#i`): the
    shift is then over every attempt, not one. An attempt that did not run has none."""
    runs: dict[str, Trajectory] = {}
    for case in results.cases:
        if case.case not in cases:
            continue
        kept = [r.trajectory for r in case.runs] or [case.trajectory]
        for index, trajectory in enumerate(kept):
            if trajectory is not None:
                runs[f"{case.case}#{index}"] = trajectory
    return runs


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
