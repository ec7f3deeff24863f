"""Graders as plug-ins: one per `expect` key, each a table of named checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from corpus_tool.grade.result import not_reached
from corpus_tool.grade.view import RunView
from corpus_tool.model.checks import CheckResult
from corpus_tool.model.cut import CutShort

CheckFn = Callable[[Any, RunView], CheckResult]
OpenFn = Callable[[Any, RunView, CutShort, bool], bool]
"""(spec, run, cut, passed) -> whether some completion of the cut-short run that the recording
allows would give the check the other result (docs/grading.md, "Not reached")."""


def always(spec: Any, run: RunView, cut: CutShort, passed: bool) -> bool:
    """Any result can still flip: the check reads the ending, which a cut-short run lacks."""
    return True


def if_failed(spec: Any, run: RunView, cut: CutShort, passed: bool) -> bool:
    """A failure can still be mended (the agent may yet emit the event); a pass cannot break."""
    return not passed


def if_passed(spec: Any, run: RunView, cut: CutShort, passed: bool) -> bool:
    """A pass can still break (the agent may yet emit the event); a failure stays."""
    return passed


class Grader(Protocol):
    """Grades one `expect` key; `checks` lists its stable check names in result order."""

    @property
    def key(self) -> str: ...

    @property
    def checks(self) -> tuple[str, ...]: ...

    def grade(self, spec: Any, run: RunView) -> list[CheckResult]: ...


@dataclass(frozen=True)
class Check:
    """A check of a grader: the field of the spec it reads (None: the whole spec).

    `open` says when a cut-short run leaves the result undecided; without it the result
    stands as graded.
    """

    field: str | None
    name: str
    run: CheckFn
    open: OpenFn | None = None

    def result(self, value: Any, run: RunView) -> CheckResult:
        """The check's result; *not reached* when a cut-short run leaves it undecided."""
        result = self.run(value, run)
        cut = run.trajectory.cut
        if cut is not None and self.open is not None and self.open(value, run, cut, result.passed):
            return not_reached(result, cut)
        return result


@dataclass(frozen=True)
class TableGrader:
    """A grader made of checks, each run when its field is set in the spec."""

    key: str
    table: tuple[Check, ...]

    @property
    def checks(self) -> tuple[str, ...]:
        """Check names in result order."""
        return tuple(c.name for c in self.table)

    def grade(self, spec: Any, run: RunView) -> list[CheckResult]:
        """Results of the checks whose field the spec sets."""
        if spec is None:
            return []
        out = []
        for check in self.table:
            value = spec if check.field is None else getattr(spec, check.field)
            if value is not None:
                out.append(check.result(value, run))
        return out
