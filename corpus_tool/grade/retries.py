"""`expect.retries`: a bound on retries, explicit (`retry` events) or implied (a call repeated
right after it failed)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from corpus_tool.grade.registry import Check, TableGrader
from corpus_tool.grade.result import CheckResult, verdict
from corpus_tool.grade.run import Run


@dataclass(frozen=True)
class Retry:
    """One retry found in the run."""

    seq: int
    text: str


def retries(run: Run) -> list[Retry]:
    """Retry events, plus repeats of a failed call that no retry event already accounts for."""
    marks = [seq for seq, _ in run.of_type("retry")]
    found = [Retry(seq, _event_text(seq, e)) for seq, e in run.of_type("retry")]
    found.extend(r for r in _repeats(run) if not _marked(r, marks))
    return sorted(found, key=lambda r: r.seq)


def max_retries(bound: int, run: Run) -> CheckResult:
    """At most `bound` retries happened."""
    found = retries(run)
    summary = f"{_count(len(found))}, at most {bound} allowed"
    if found:
        summary += ": " + "; ".join(r.text for r in found)
    problems = [summary] if len(found) > bound else []
    return verdict("retries.max", problems, summary, count=len(found), seqs=[r.seq for r in found])


def _count(n: int) -> str:
    return f"{n} retr{'y' if n == 1 else 'ies'}"


@dataclass(frozen=True)
class _Repeat(Retry):
    failed_seq: int


def _repeats(run: Run) -> Iterable[_Repeat]:
    """A tool call identical (tool, arguments; key aside) to the failed call just before it."""
    for prev, call in zip(run.calls, run.calls[1:], strict=False):
        if prev.error_type and prev.request() == call.request():
            text = (
                f"{call.tool} repeated at seq {call.seq} after {prev.error_type} at seq {prev.seq}"
            )
            yield _Repeat(call.seq, text, prev.seq)


def _marked(retry: Retry, marks: list[int]) -> bool:
    # A retry event between the failed call and its repeat already counted this retry.
    return isinstance(retry, _Repeat) and any(retry.failed_seq < m < retry.seq for m in marks)


def _event_text(seq: int, event: Any) -> str:
    attempt = event.get("attempt")
    tail = f", attempt {attempt}" if attempt is not None else ""
    return f"retry event at seq {seq} (of seq {event.get('of')}{tail})"


GRADER = TableGrader("retries", (Check("max", "retries.max", lambda s, r: max_retries(int(s), r)),))
