"""`expect.errors`: error types (tool errors and error events) that must not, or must, occur."""

from __future__ import annotations

from corpus_tool.grade.registry import Check, TableGrader, if_failed, if_passed
from corpus_tool.grade.result import from_problems
from corpus_tool.grade.view import RunView
from corpus_tool.model.checks import CheckResult


def forbidden(types: tuple[str, ...], run: RunView) -> CheckResult:
    """No error of a listed type occurred."""
    hits = [e for e in run.errors if e.type in types]
    problems = [f"forbidden error {e.text()}" for e in hits]
    ok = f"none of {_names(types)} occurred" + _seen(run)
    return from_problems(
        "errors.forbidden", problems, ok, occurred=[{"type": e.type, "seq": e.seq} for e in hits]
    )


def required(types: tuple[str, ...], run: RunView) -> CheckResult:
    """Every listed error type occurred at least once."""
    seen = {e.type: e for e in reversed(run.errors)}  # first occurrence wins
    missing = [t for t in types if t not in seen]
    problems = [f"required error {t} never occurred{_seen(run)}" for t in missing]
    found = ", ".join(f"{t} at seq {seen[t].seq}" for t in types if t in seen)
    ok = f"occurred: {found}" if found else "no error types listed"
    return from_problems("errors.required", problems, ok, missing=missing)


def _names(types: tuple[str, ...]) -> str:
    return ", ".join(types) if types else "(no types listed)"


def _seen(run: RunView) -> str:
    if not run.errors:
        return "; the run raised no errors"
    return "; errors seen: " + ", ".join(f"{e.type} (seq {e.seq})" for e in run.errors)


GRADER = TableGrader(
    "errors",
    (
        # the agent's own code may raise any error after the cut
        Check("forbidden", "errors.forbidden", forbidden, if_passed),
        Check("required", "errors.required", required, if_failed),
    ),
)
