"""Making check results: passed, failed, or a verdict from a list of problems."""

from __future__ import annotations

from typing import Any

from corpus_tool.model.checks import CheckResult


def passed(name: str, message: str, **details: Any) -> CheckResult:
    """A passing result."""
    return CheckResult(name, True, message, details)


def failed(name: str, message: str, **details: Any) -> CheckResult:
    """A failing result."""
    return CheckResult(name, False, message, details)


def verdict(name: str, problems: list[str], ok_message: str, **details: Any) -> CheckResult:
    """Fails with every problem joined when there are any, else passes with `ok_message`."""
    if problems:
        return failed(name, "; ".join(problems), **details)
    return passed(name, ok_message, **details)
