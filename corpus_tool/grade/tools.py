"""`expect.tools`: which tools are called, in what order, how often, with which arguments."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from corpus_tool.grade.registry import Check, TableGrader
from corpus_tool.grade.result import from_problems
from corpus_tool.grade.tool_args import args, args_open
from corpus_tool.grade.view import RunView, label, plural, seqs
from corpus_tool.model.checks import CheckResult
from corpus_tool.model.cut import CutShort
from corpus_tool.model.events import ToolCallEvent

_SHOWN_CALLS = 20


def required(tools: tuple[str, ...], run: RunView) -> CheckResult:
    """Every listed tool was called at least once."""
    called = {c.tool for c in run.calls}
    missing = [t for t in tools if t not in called]
    problems = [f"required tool {t} was never called; {_sequence(run)}" for t in missing]
    ok = "called: " + (", ".join(f"{t} ({seqs(_calls(run, t))})" for t in tools) or "(none listed)")
    return from_problems("tools.required", problems, ok, missing=missing)


def forbidden(tools: tuple[str, ...], run: RunView) -> CheckResult:
    """No listed tool was called."""
    problems = [
        f"forbidden tool {t} was called at {seqs(calls)}"
        for t in tools
        if (calls := _calls(run, t))
    ]
    ok = f"none of {', '.join(tools)} was called"
    return from_problems("tools.forbidden", problems, ok)


def allowed(tools: tuple[str, ...], run: RunView) -> CheckResult:
    """Every call was of a listed tool."""
    outside = [c for c in run.calls if c.tool not in tools]
    problems = [
        f"tool {t} at {seqs(calls)} is not in the allowed set"
        for t in dict.fromkeys(c.tool for c in outside)
        if (calls := _calls(run, t))
    ]
    if problems:
        problems.append(f"allowed: {', '.join(tools) or '(none)'}")
    ok = f"all {plural(len(run.calls), 'call')} use allowed tools ({', '.join(tools) or 'none'})"
    return from_problems("tools.allowed", problems, ok, outside=[c.seq for c in outside])


def order(lists: tuple[tuple[str, ...], ...], run: RunView) -> CheckResult:
    """Each listed sequence appears, in order, within the call sequence (gaps allowed)."""
    problems = [p for chain in lists if (p := _order_problem(chain, run))]
    if problems:
        problems.append(_sequence(run))
    shown = "; ".join(" -> ".join(chain) for chain in lists)
    return from_problems("tools.order", problems, f"calls follow {shown}")


def max_calls(bounds: Mapping[str, int], run: RunView) -> CheckResult:
    """No tool was called more often than its bound."""
    problems = []
    for tool, bound in bounds.items():
        calls = _calls(run, tool)
        if len(calls) > bound:
            problems.append(
                f"{tool} was called {len(calls)} times ({seqs(calls)}), at most {bound} allowed"
            )
    ok = ", ".join(f"{t}: {len(_calls(run, t))} of at most {b}" for t, b in bounds.items())
    return from_problems("tools.max_calls", problems, ok or "no bounds listed")


def _order_problem(chain: tuple[str, ...], run: RunView) -> str | None:
    """Greedy earliest match (optimal for subsequences); where it stops is the message."""
    matched = _matched(chain, run)
    if len(matched) == len(chain):
        return None
    return _order_break(chain, matched, chain[len(matched)], run)


def _matched(chain: tuple[str, ...], run: RunView) -> list[ToolCallEvent]:
    """The calls matching the longest prefix of `chain` that is a subsequence of the calls."""
    matched: list[ToolCallEvent] = []
    rest = list(run.calls)
    for tool in chain:
        at = next((i for i, c in enumerate(rest) if c.tool == tool), None)
        if at is None:
            break
        matched.append(rest[at])
        rest = rest[at + 1 :]
    return matched


def _order_break(
    chain: tuple[str, ...], matched: list[ToolCallEvent], tool: str, run: RunView
) -> str:
    head = f"order {' -> '.join(chain)} broken: "
    done = ", ".join(label(c) for c in matched)
    if not matched:
        return head + f"{tool} was never called"
    elsewhere = _calls(run, tool)
    where = f" (called only at {seqs(elsewhere)})" if elsewhere else " (never called)"
    return head + f"matched {done}, then no {tool} after seq {matched[-1].seq}{where}"


def _calls(run: RunView, tool: str) -> list[ToolCallEvent]:
    return [c for c in run.calls if c.tool == tool]


def _sequence(run: RunView) -> str:
    if not run.calls:
        return "the run called no tools"
    shown = ", ".join(label(c) for c in run.calls[:_SHOWN_CALLS])
    more = f", and {len(run.calls) - _SHOWN_CALLS} more" if len(run.calls) > _SHOWN_CALLS else ""
    return f"calls were: {shown}{more}"


# When a cut-short run leaves a result open (docs/grading.md, "Not reached"): calls can only
# be added, and only as many of each tool as the recording could still answer.


def _required_open(tools: tuple[str, ...], run: RunView, cut: CutShort, passed: bool) -> bool:
    called = {c.tool for c in run.calls}
    return not passed and all(cut.may_call(t) for t in tools if t not in called)


def _forbidden_open(tools: tuple[str, ...], run: RunView, cut: CutShort, passed: bool) -> bool:
    return passed and any(cut.may_call(t) for t in tools)


def _allowed_open(tools: tuple[str, ...], run: RunView, cut: CutShort, passed: bool) -> bool:
    return passed and any(t not in tools for t in cut.callable_tools())


def _order_open(
    lists: tuple[tuple[str, ...], ...], run: RunView, cut: CutShort, passed: bool
) -> bool:
    if passed:
        return False
    for chain in lists:
        missing = Counter(chain[len(_matched(chain, run)) :])
        if not all(cut.may_call(tool, n) for tool, n in missing.items()):
            return False
    return True


def _max_calls_open(bounds: Mapping[str, int], run: RunView, cut: CutShort, passed: bool) -> bool:
    return passed and any(cut.may_call(t, b - len(_calls(run, t)) + 1) for t, b in bounds.items())


GRADER = TableGrader(
    "tools",
    (
        Check("required", "tools.required", required, _required_open),
        Check("forbidden", "tools.forbidden", forbidden, _forbidden_open),
        Check("allowed", "tools.allowed", allowed, _allowed_open),
        Check("order", "tools.order", order, _order_open),
        Check("args", "tools.args", args, args_open),
        Check("max_calls", "tools.max_calls", max_calls, _max_calls_open),
    ),
)
