"""`expect.idempotency`: a repeated call of a non-idempotent tool reuses its idempotency key.

A repeat is a call of the same tool with the same arguments (the key argument aside); the key
is the event's `idempotency_key`, else an `idempotency_key` argument.
"""

from __future__ import annotations

from corpus_tool.grade.registry import Check, TableGrader
from corpus_tool.grade.result import from_problems
from corpus_tool.grade.view import RunView, idempotency_key, identity, label, show
from corpus_tool.model.checks import CheckResult
from corpus_tool.model.cut import CutShort
from corpus_tool.model.events import ToolCallEvent


def reuse_key(tools: tuple[str, ...], run: RunView) -> CheckResult:
    """Every repeat of a listed tool's call carries the first call's (non-empty) key."""
    problems: list[str] = []
    reused: list[str] = []
    for first, repeat in _repeats(tools, run):
        problem = _problem(first, repeat)
        if problem:
            problems.append(problem)
        else:
            reused.append(
                f"{label(repeat)} reuses key {show(idempotency_key(first))} of seq {first.seq}"
            )
    ok = "; ".join(reused) or f"no call of {', '.join(tools)} was repeated with the same arguments"
    return from_problems("idempotency.reuse_key", problems, ok)


def _repeats(tools: tuple[str, ...], run: RunView) -> list[tuple[ToolCallEvent, ToolCallEvent]]:
    """(first call, later call) for every later call with the same request as an earlier one."""
    first: dict[str, ToolCallEvent] = {}
    pairs = []
    for call in run.calls:
        if call.tool not in tools:
            continue
        request = identity(call)
        if request in first:
            pairs.append((first[request], call))
        else:
            first[request] = call
    return pairs


def _problem(first: ToolCallEvent, repeat: ToolCallEvent) -> str | None:
    head = f"{label(repeat)} repeats seq {first.seq} with the same arguments"
    was, now = idempotency_key(first), idempotency_key(repeat)
    if was is None and now is None:
        return f"{head}, and neither carries an idempotency key"
    if was is None:
        return f"{head}, but seq {first.seq} carried no idempotency key"
    if now is None:
        return f"{head} but without an idempotency key (seq {first.seq} used {show(was)})"
    if now != was:
        return (
            f"{head} but a new idempotency key {show(now)}, "
            f"expected {show(was)} as at seq {first.seq}"
        )
    return None


def _reuse_open(tools: tuple[str, ...], run: RunView, cut: CutShort, passed: bool) -> bool:
    """A pass breaks only if a listed tool could still be called again (a new repeat)."""
    return passed and any(
        cut.may_call(t, 2 - min(1, sum(c.tool == t for c in run.calls))) for t in tools
    )


GRADER = TableGrader(
    "idempotency",
    (Check("tools", "idempotency.reuse_key", reuse_key, _reuse_open),),
)
