"""`expect.terminal`: the run ended with exactly the expected status."""

from __future__ import annotations

from corpus_tool.grade.registry import Check, TableGrader, always
from corpus_tool.grade.result import failed, passed
from corpus_tool.grade.view import RunView
from corpus_tool.model.checks import CheckResult

# Statuses that people confuse with success; the message spells out the difference.
_NOT_SUCCESS = {
    "submitted": "submitted means accepted, not yet done",
    "needs_human": "needs_human means the agent handed the case to a person",
    "unknown": "unknown means the outcome was never observed",
}


def status(expected: str, run: RunView) -> CheckResult:
    """The terminal status equals the expected one; no status counts as close to another."""
    actual = run.terminal.status
    if not actual:
        return failed(
            "terminal.status",
            f"the run reported no terminal status, expected {expected}",
            expected=expected,
            actual=None,
        )
    if actual == expected:
        return passed(
            "terminal.status", f"terminal status is {actual}", expected=expected, actual=actual
        )
    note = _NOT_SUCCESS.get(str(actual)) if expected == "succeeded" else None
    return failed(
        "terminal.status",
        f"terminal status is {actual}, expected {expected}" + (f" ({note})" if note else ""),
        expected=expected,
        actual=actual,
    )


# a cut-short run never reached its ending
GRADER = TableGrader("terminal", (Check("status", "terminal.status", status, always),))
