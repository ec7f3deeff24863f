"""`expect.idempotency`: a repeated call of a non-idempotent tool reuses its idempotency key.

A repeat is a call of the same tool with the same arguments (the key argument aside); the key
is the event's `idempotency_key`, else an `idempotency_key` argument.
"""

from __future__ import annotations

from corpus_tool.grade.registry import Check, TableGrader
from corpus_tool.grade.result import CheckResult, verdict
from corpus_tool.grade.run import Run, ToolCall, names, show


def reuse_key(tools: list[str], run: Run) -> CheckResult:
    """Every repeat of a listed tool's call carries the first call's (non-empty) key."""
    problems: list[str] = []
    reused: list[str] = []
    for first, repeat in _repeats(tools, run):
        problem = _problem(first, repeat)
        if problem:
            problems.append(problem)
        else:
            reused.append(
                f"{repeat.label()} reuses key {show(first.idempotency_key)} of seq {first.seq}"
            )
    ok = "; ".join(reused) or f"no call of {', '.join(tools)} was repeated with the same arguments"
    return verdict("idempotency.reuse_key", problems, ok)


def _repeats(tools: list[str], run: Run) -> list[tuple[ToolCall, ToolCall]]:
    """(first call, later call) for every later call with the same request as an earlier one."""
    first: dict[str, ToolCall] = {}
    pairs = []
    for call in run.calls:
        if call.tool not in tools:
            continue
        request = call.request()
        if request in first:
            pairs.append((first[request], call))
        else:
            first[request] = call
    return pairs


def _problem(first: ToolCall, repeat: ToolCall) -> str | None:
    head = f"{repeat.label()} repeats seq {first.seq} with the same arguments"
    if first.idempotency_key is None and repeat.idempotency_key is None:
        return f"{head}, and neither carries an idempotency key"
    if first.idempotency_key is None:
        return f"{head}, but seq {first.seq} carried no idempotency key"
    if repeat.idempotency_key is None:
        used = show(first.idempotency_key)
        return f"{head} but without an idempotency key (seq {first.seq} used {used})"
    if repeat.idempotency_key != first.idempotency_key:
        return (
            f"{head} but a new idempotency key {show(repeat.idempotency_key)}, "
            f"expected {show(first.idempotency_key)} as at seq {first.seq}"
        )
    return None


GRADER = TableGrader(
    "idempotency",
    (Check("tools", "idempotency.reuse_key", lambda s, r: reuse_key(names(s), r)),),
)
