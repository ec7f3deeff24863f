"""Trajectory graders: one per `expect` key of expected.yaml, each check with a stable name.

    results = grade_run(expect, trajectory, scorer, scorers)     # the trace model
    results = grade(expect, events, terminal, scorer, scorers)    # file-form documents

`scorer` is the default similarity scorer; `scorers` (corpus.yaml `scorers`) is what a case's
`output.similar.scorer` may name: a name, never a callable.

Results come in `CHECK_NAMES` order (corpus_tool.model.checks); a check appears only when its
key is in `expect`. Waivers refer to checks by these names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from corpus_tool.grade import (
    egress,
    error_types,
    idempotency,
    output,
    retries,
    side_effects,
    terminal,
    tools,
)
from corpus_tool.grade.from_files import expect_from_doc, trajectory_from_docs
from corpus_tool.grade.registry import Grader
from corpus_tool.grade.scorers import LEXICAL, Scorer, Scorers, lexical_scorer, resolve_scorer
from corpus_tool.grade.view import view
from corpus_tool.model.checks import GRADER_CHECKS, CheckResult
from corpus_tool.model.config import Config
from corpus_tool.model.expected import Expect
from corpus_tool.model.trace import Trajectory

# Registry order is result order; adding a grader is adding a module and a line here.
GRADERS: Mapping[str, Grader] = MappingProxyType(
    {
        g.key: g
        for g in (
            error_types.GRADER,
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

CHECK_NAMES: tuple[str, ...] = GRADER_CHECKS


def grade_run(
    expect: Expect,
    trajectory: Trajectory,
    scorer: Scorer | None = None,
    scorers: Scorers | None = None,
) -> list[CheckResult]:
    """Every check `expect` asks for, graded on the trajectory, in `CHECK_NAMES` order."""
    run = view(trajectory, scorer, scorers)
    results: list[CheckResult] = []
    for key, grader in GRADERS.items():
        results.extend(grader.grade(getattr(expect, key), run))
    return results


def grade(
    expect: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    terminal: Mapping[str, Any],
    scorer: Scorer | None = None,
    scorers: Scorers | None = None,
) -> list[CheckResult]:
    """`grade_run` on file-form data: expected.yaml's `expect`, trace.yaml events, terminal."""
    trajectory = trajectory_from_docs(events, terminal)
    return grade_run(expect_from_doc(expect or {}), trajectory, scorer, scorers)


def grade_checks(expect: Expect, trajectory: Trajectory, config: Config) -> tuple[CheckResult, ...]:
    """`grade_run` with the scorers a corpus config registers: what replay is given to grade with.

    A scorer is imported only when a case uses it, and only from the config's `scorers`.
    """
    return tuple(grade_run(expect, trajectory, scorers=Scorers.from_config(config)))


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
    "grade_run",
    "lexical_scorer",
    "resolve_scorer",
]
