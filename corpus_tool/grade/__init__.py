"""Trajectory graders: one per `expect` key of expected.yaml, each check with a stable name.

    results = grade(expect, events, terminal, scorer)

`expect` is expected.yaml's `expect` mapping, `events` the replayed trajectory in trace.yaml
event form, `terminal` is `{status, output}`. A check appears only when its key is in `expect`;
results come in `CHECK_NAMES` order. Waivers refer to checks by these names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.grade import (
    egress,
    errors,
    idempotency,
    output,
    retries,
    side_effects,
    terminal,
    tools,
)
from corpus_tool.grade.registry import Grader
from corpus_tool.grade.result import CheckResult
from corpus_tool.grade.run import make_run
from corpus_tool.grade.scorers import LEXICAL, Scorer, Scorers, lexical_scorer, resolve_scorer

# Registry order is result order; adding a grader is adding a module and a line here.
GRADERS: Mapping[str, Grader] = MappingProxyType(
    {
        g.key: g
        for g in (
            errors.GRADER,
            tools.GRADER,
            retries.GRADER,
            egress.GRADER,
            side_effects.GRADER,
            idempotency.GRADER,
            terminal.GRADER,
            output.GRADER,
        )
    }
)

CHECK_NAMES: tuple[str, ...] = tuple(name for g in GRADERS.values() for name in g.checks)


def grade(
    expect: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    terminal: Mapping[str, Any],
    scorer: Scorer | None = None,
    scorers: Scorers | None = None,
) -> list[CheckResult]:
    """Every check `expect` asks for, graded on the replayed run, in `CHECK_NAMES` order.

    `scorer` is the default similarity scorer; a case names others, looked up in `scorers`.
    """
    expect = expect or {}
    unknown = sorted(set(expect) - set(GRADERS))
    if unknown:
        raise InputError(
            f"expect has unknown key(s) {', '.join(unknown)}; known: {', '.join(GRADERS)}"
        )
    run = make_run(events, terminal, scorer, scorers)
    results: list[CheckResult] = []
    for key, grader in GRADERS.items():
        if key in expect:
            results.extend(grader.grade(expect[key], run))
    return results


def grade_checks(
    expect: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    terminal: Mapping[str, Any],
    config: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """`grade` with the scorers a corpus config registers, results as results documents hold.

    Scorers are imported only when a case uses one, and only from the config's `scorers`.
    """
    results = grade(expect, events, terminal, scorers=Scorers.from_config(config))
    return [
        {"name": r.name, "passed": r.passed, "message": r.message, "details": dict(r.details)}
        for r in results
    ]


__all__ = [
    "CHECK_NAMES",
    "GRADERS",
    "LEXICAL",
    "CheckResult",
    "Grader",
    "Scorer",
    "Scorers",
    "grade",
    "grade_checks",
    "lexical_scorer",
    "resolve_scorer",
]
