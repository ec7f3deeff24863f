"""`expect.retries`: a bound on retries, explicit (`retry` events) or implied (a call repeated
right after it failed)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from corpus_tool.grade.registry import Check, TableGrader, if_passed
from corpus_tool.grade.result import from_problems
from corpus_tool.grade.view import RunView, error_type, identity
from corpus_tool.model.checks import CheckResult
from corpus_tool.model.events import RetryEvent


@dataclass(frozen=True)
class Retry:
    """One retry found in the run."""

    seq: int
    text: str


def retries(run: RunView) -> list[Retry]:
    """Retry events, plus repeats of a failed call that no retry event already accounts for."""
    events = list(run.trajectory.of_type(RetryEvent))
    marks = [e.seq for e in events]
    found = [Retry(e.seq, _event_text(e)) for e in events]
    found.extend(r for r in _repeats(run) if not _marked(r, marks))
    return sorted(found, key=lambda r: r.seq)


def max_retries(bound: int, run: RunView) -> CheckResult:
    """At most `bound` retries happened."""
    found = retries(run)
    summary = f"{_count(len(found))}, at most {bound} allowed"
    if found:
        summary += ": " + "; ".join(r.text for r in found)
    problems = [summary] if len(found) > bound else []
    return from_problems(
        "retries.max", problems, summary, count=len(found), seqs=[r.seq for r in found]
    )


def _count(n: int) -> str:
    return f"{n} retr{'y' if n == 1 else 'ies'}"


@dataclass(frozen=True)
class _Repeat(Retry):
    failed_seq: int


def _repeats(run: RunView) -> Iterable[_Repeat]:
    """A tool call identical (tool, arguments; key aside) to the failed call just before it."""
    for prev, call in zip(run.calls, run.calls[1:], strict=False):
        failure = error_type(prev)
        if failure and identity(prev) == identity(call):
            text = f"{call.tool} repeated at seq {call.seq} after {failure} at seq {prev.seq}"
            yield _Repeat(call.seq, text, prev.seq)


def _marked(retry: Retry, marks: list[int]) -> bool:
    # A retry event between the failed call and its repeat already counted this retry.
    return isinstance(retry, _Repeat) and any(retry.failed_seq < m < retry.seq for m in marks)


def _event_text(event: RetryEvent) -> str:
    tail = f", attempt {event.attempt}" if event.attempt is not None else ""
    return f"retry event at seq {event.seq} (of seq {event.of}{tail})"


# retries only add up, and the agent may emit `retry` events after the cut
GRADER = TableGrader("retries", (Check("max", "retries.max", max_retries, if_passed),))
