"""Making check results: passed, failed, or one from a list of problems."""

from __future__ import annotations

from typing import Any

from corpus_tool.model.checks import CheckResult
from corpus_tool.model.cut import CutShort


def passed(name: str, message: str, **details: Any) -> CheckResult:
    """A passing result."""
    return CheckResult(name, True, message, details)


def failed(name: str, message: str, **details: Any) -> CheckResult:
    """A failing result."""
    return CheckResult(name, False, message, details)


def from_problems(name: str, problems: list[str], ok_message: str, **details: Any) -> CheckResult:
    """Fails with every problem joined when there are any, else passes with `ok_message`."""
    if problems:
        return failed(name, "; ".join(problems), **details)
    return passed(name, ok_message, **details)


def not_reached(result: CheckResult, cut: CutShort) -> CheckResult:
    """The check undecided: the run stopped before it; what it saw so far is kept."""
    return CheckResult(
        result.name,
        False,
        f"not reached (the run stopped at {cut.describe()}); so far: {result.message}",
        result.details,
        reached=False,
    )
