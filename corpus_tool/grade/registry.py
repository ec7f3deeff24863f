"""Graders as plug-ins: one per `expect` key, each a table of named checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from corpus_tool.grade.view import RunView
from corpus_tool.model.checks import CheckResult

CheckFn = Callable[[Any, RunView], CheckResult]


class Grader(Protocol):
    """Grades one `expect` key; `checks` lists its stable check names in result order."""

    @property
    def key(self) -> str: ...

    @property
    def checks(self) -> tuple[str, ...]: ...

    def grade(self, spec: Any, run: RunView) -> list[CheckResult]: ...


@dataclass(frozen=True)
class Check:
    """A check of a grader: the field of the spec it reads (None: the whole spec)."""

    field: str | None
    name: str
    run: CheckFn


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
                out.append(check.run(value, run))
        return out
