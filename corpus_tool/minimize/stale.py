"""Expectations that name what minimization removed: reported, never edited (a person reviewed
expected.yaml; the reviewer decides)."""

from __future__ import annotations

from collections.abc import Iterator

from corpus_tool.model.events import SideEffectEvent
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace


def stale(expected: Expected, before: Trace, after: Trace) -> list[str]:
    """One line per expectation that names an event or tool only the removed events held."""
    gone_tools = _tools(before) - _tools(after)
    gone_effects = _effects(before) - _effects(after)
    kept_seqs = {e.seq for e in after.events}
    lines = []
    trigger = expected.trigger
    if trigger is not None and trigger.seq is not None and trigger.seq not in kept_seqs:
        lines.append(f"trigger.seq {trigger.seq} names a removed event")
    for where, tool in _named_tools(expected):
        if tool in gone_tools:
            lines.append(f"{where} names {tool}, which the minimized trace no longer calls")
    for count in expected.expect.side_effects or ():
        if count.type in gone_effects:
            lines.append(
                f"expect.side_effects names {count.type}, which the minimized trace no longer holds"
            )
    return list(dict.fromkeys(lines))  # a tool named in two order chains: one line


def _tools(trace: Trace) -> set[str]:
    return {c.tool for c in trace.tool_calls}


def _effects(trace: Trace) -> set[str]:
    return {e.kind for e in trace.of_type(SideEffectEvent)}


def _named_tools(expected: Expected) -> Iterator[tuple[str, str]]:
    tools = expected.expect.tools
    if tools is None:
        return
    for tool in tools.required or ():
        yield "expect.tools.required", tool
    for chain in tools.order or ():
        for tool in chain:
            yield "expect.tools.order", tool
    for args in tools.args or ():
        yield "expect.tools.args", args.tool
    for tool in sorted(tools.max_calls or {}):
        yield "expect.tools.max_calls", tool
