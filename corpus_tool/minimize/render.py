"""The before/after summary of a minimization, as data and as lines for people."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.minimize.shrink import Shrunk
from corpus_tool.model.config import Mode
from corpus_tool.model.trace import Trace


def summary(result: Shrunk, mode: str, notes: list[str]) -> dict[str, Any]:
    """The before/after facts, JSON-ready (also what `add --minimize` reports)."""
    return {
        "mode": mode,
        "trigger": result.trigger.describe(),
        "before": _size(result.before, result.units_before),
        "after": _size(result.trace, result.units_after),
        "removed": list(result.removed),
        "replays": result.replays,
        "exhausted": result.exhausted,
        "stale": notes,
    }


def _size(trace: Trace, units: int) -> dict[str, int]:
    return {
        "events": len(trace.events),
        "units": units,
        "model_calls": len(trace.model_calls),
        "tool_calls": len(trace.tool_calls),
    }


def text_lines(report: dict[str, Any], path: Path, dry_run: bool) -> list[str]:
    """The before/after summary for people."""
    before, after = report["before"], report["after"]
    lines = [
        f"minimize {report['case']} ({report['mode']} replay), keeping: {report['trigger']}",
        f"  before: {_shown(before)}",
        f"  after:  {_shown(after)}",
        f"  {report['replays']} replay(s)",
    ]
    if report["removed"]:
        lines.append("  removed seq " + ", ".join(str(s) for s in report["removed"]))
    else:
        lines.append("  nothing to remove: every unit is needed to reproduce the trigger")
        if report["mode"] == Mode.STRICT:
            lines.append(
                "  (strict replay compares each model request, which carries the conversation "
                "so far; a case replayed leniently can lose more: --mode lenient)"
            )
    if report["exhausted"]:
        lines.append("  stopped at --max-replays: the result may not be the smallest")
    lines.extend(f"  review expected.yaml: {note}" for note in report["stale"])
    if report["written"]:
        lines.append(f"  wrote {path}")
    elif dry_run and report["removed"]:
        lines.append("  dry run: nothing written")
    return lines


def _shown(size: dict[str, int]) -> str:
    return (
        f"{size['events']} events in {size['units']} units "
        f"({size['model_calls']} model call(s), {size['tool_calls']} tool call(s))"
    )
