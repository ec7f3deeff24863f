"""Graders as plug-ins: one per `expect` key, each a table of named checks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from corpus_tool.grade.result import CheckResult
from corpus_tool.grade.run import Run

CheckFn = Callable[[Any, Run], CheckResult]


class Grader(Protocol):
    """Grades one `expect` key; `checks` lists its stable check names in result order."""

    @property
    def key(self) -> str: ...

    @property
    def checks(self) -> tuple[str, ...]: ...

    def grade(self, spec: Any, run: Run) -> list[CheckResult]: ...


@dataclass(frozen=True)
class Check:
    """A check of a grader: the sub-key of the spec it reads (None: the whole spec)."""

    subkey: str | None
    name: str
    run: CheckFn


@dataclass(frozen=True)
class TableGrader:
    """A grader made of checks, each run when its sub-key is present in the spec."""

    key: str
    table: tuple[Check, ...]

    @property
    def checks(self) -> tuple[str, ...]:
        """Check names in result order."""
        return tuple(c.name for c in self.table)

    def grade(self, spec: Any, run: Run) -> list[CheckResult]:
        """Results of the checks whose sub-key the spec holds."""
        if spec is None:
            return []
        out = []
        for check in self.table:
            if check.subkey is None:
                out.append(check.run(spec, run))
            elif isinstance(spec, Mapping) and check.subkey in spec:
                out.append(check.run(spec[check.subkey], run))
        return out
