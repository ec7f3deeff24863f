"""Events grouped into the units minimization moves: removing a unit keeps a trace complete.

A unit is a model call with the tool calls it asked for (by call id, else by name in order,
as the completeness rules pair them; retries of a call share its id), a retry with the event
it retries and the call that follows it, and every event the agent caused itself (an error,
a side effect, a state change, a handoff) with the call it followed.
"""

from __future__ import annotations

from collections.abc import Sequence

from corpus_tool.model.events import Event, ModelCallEvent, RetryEvent, ToolCallEvent

Unit = tuple[int, ...]
"""Indexes into the trace's event list, ascending."""


class _Links:
    """Union-find over event indexes."""

    def __init__(self, size: int):
        self._parent = list(range(size))

    def find(self, i: int) -> int:
        while self._parent[i] != i:
            self._parent[i] = self._parent[self._parent[i]]
            i = self._parent[i]
        return i

    def join(self, a: int, b: int) -> None:
        low, high = sorted((self.find(a), self.find(b)))
        self._parent[high] = low


def units(events: Sequence[Event]) -> list[Unit]:
    """The units of an event list, ordered by their first event."""
    links = _Links(len(events))
    _requested_calls(events, links)
    _retries(events, links)
    _caused(events, links)
    groups: dict[int, list[int]] = {}
    for i in range(len(events)):
        groups.setdefault(links.find(i), []).append(i)
    return sorted((tuple(g) for g in groups.values()), key=lambda g: g[0])


def _requested_calls(events: Sequence[Event], links: _Links) -> None:
    """Each model call with the tool calls answering what it asked for."""
    by_id: dict[str, list[int]] = {}
    for j, event in enumerate(events):
        if isinstance(event, ToolCallEvent) and event.call_id:
            by_id.setdefault(event.call_id, []).append(j)
    taken: set[int] = set()
    for i, event in enumerate(events):
        if not isinstance(event, ModelCallEvent):
            continue
        for call in event.response.tool_calls:
            answers = by_id.get(call.id, []) if call.id else []
            if not answers:
                answers = _by_name(events, i, call.name, taken)
            for j in answers:
                taken.add(j)
                links.join(i, j)


def _by_name(events: Sequence[Event], after: int, name: str, taken: set[int]) -> list[int]:
    """The first id-less call of `name` after the request that no request took yet."""
    for j in range(after + 1, len(events)):
        event = events[j]
        if (
            isinstance(event, ToolCallEvent)
            and not event.call_id
            and event.tool == name
            and j not in taken
        ):
            return [j]
    return []


def _retries(events: Sequence[Event], links: _Links) -> None:
    """A retry joins what it retries and the next call of the same tool (the new attempt)."""
    at = {e.seq: i for i, e in enumerate(events)}
    for i, event in enumerate(events):
        if not isinstance(event, RetryEvent):
            continue
        target = at.get(event.of)
        if target is None:
            continue
        links.join(i, target)
        retried = events[target]
        if isinstance(retried, ToolCallEvent):
            again = next(
                (
                    j
                    for j in range(i + 1, len(events))
                    if isinstance(events[j], ToolCallEvent) and events[j].tool == retried.tool  # type: ignore[union-attr]
                ),
                None,
            )
            if again is not None:
                links.join(i, again)


def _caused(events: Sequence[Event], links: _Links) -> None:
    """An event the agent caused joins the call it followed (the first call, if none)."""
    calls = [i for i, e in enumerate(events) if isinstance(e, (ModelCallEvent, ToolCallEvent))]
    if not calls:
        return
    last = calls[0]
    for i, event in enumerate(events):
        if isinstance(event, (ModelCallEvent, ToolCallEvent)):
            last = i
        elif not isinstance(event, RetryEvent):
            links.join(i, last)
