"""`tools.args`: some call of a tool carries the listed arguments (subset) or exactly them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corpus_tool.grade.arg_diff import describe, exact_diff, subset_diff
from corpus_tool.grade.result import from_problems
from corpus_tool.grade.view import RunView, show
from corpus_tool.model.checks import CheckResult
from corpus_tool.model.cut import DIVERGED, CutShort
from corpus_tool.model.events import ToolCallEvent
from corpus_tool.model.expected import ArgsExpect
from corpus_tool.model.field_diff import FieldDiff

_SHOWN_DIFFS = 5


def args(constraints: tuple[ArgsExpect, ...], run: RunView) -> CheckResult:
    """Each constraint is met by at least one call of its tool."""
    problems: list[str] = []
    matched: list[str] = []
    closest: list[dict[str, Any]] = []
    for constraint in constraints:
        tool, match, mode = constraint.tool, constraint.match, constraint.mode
        best = _closest(tool, match, mode, run)
        if best is None:
            problems.append(f"{tool} was never called (wanted {mode} {show(match)})")
            closest.append({"tool": tool, "mode": mode, "closest_seq": None})
        elif best[1]:
            problems.append(_mismatch(tool, match, mode, *best))
            closest.append(_data(tool, mode, *best))
        else:
            matched.append(f"{tool} at seq {best[0].seq} ({mode} {show(match)})")
    ok = "matched: " + ("; ".join(matched) or "no constraints listed")
    return from_problems("tools.args", problems, ok, closest=closest)


def _closest(
    tool: str, match: Mapping[str, Any], mode: str, run: RunView
) -> tuple[ToolCallEvent, list[FieldDiff]] | None:
    """The call with the fewest differences (earliest on ties); a perfect one ends the search."""
    compare = exact_diff if mode == "exact" else subset_diff
    best: tuple[ToolCallEvent, list[FieldDiff]] | None = None
    for call in run.calls:
        if call.tool != tool:
            continue
        diffs = compare(match, call.arguments)
        if best is None or len(diffs) < len(best[1]):
            best = (call, diffs)
        if not diffs:
            break
    return best


def _mismatch(
    tool: str, match: Mapping[str, Any], mode: str, call: ToolCallEvent, diffs: list[FieldDiff]
) -> str:
    shown = ", ".join(describe(d) for d in diffs[:_SHOWN_DIFFS])
    more = f", and {len(diffs) - _SHOWN_DIFFS} more" if len(diffs) > _SHOWN_DIFFS else ""
    attempt = (
        f" (the call the {call.extra[DIVERGED]} divergence stopped)"
        if call.extra and DIVERGED in call.extra
        else ""
    )
    return (
        f"no call of {tool} matches {mode} {show(match)}; "
        f"closest is seq {call.seq}{attempt}: {shown}{more}"
    )


def _data(tool: str, mode: str, call: ToolCallEvent, diffs: list[FieldDiff]) -> dict[str, Any]:
    return {
        "tool": tool,
        "mode": mode,
        "closest_seq": call.seq,
        "differences": [d.data() for d in diffs],
    }


def args_open(
    constraints: tuple[ArgsExpect, ...], run: RunView, cut: CutShort, passed: bool
) -> bool:
    """Unmet constraints can still be met when the recording answers another call of the tool."""
    if passed:
        return False
    unmet = [
        c
        for c in constraints
        if (best := _closest(c.tool, c.match, c.mode, run)) is None or best[1]
    ]
    return all(cut.may_call(c.tool) for c in unmet)
