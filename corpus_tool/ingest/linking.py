"""Pairing the tool calls a model requested with the tool_call events that answered them."""

from __future__ import annotations

from typing import Any


def link_ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give a requested call without id the id of the tool call that answered it.

    Some frameworks (Google ADK) assign call ids client-side: the model's request carries none,
    the tool span does. The first later call of that tool with an unclaimed id answered it.
    """
    claimed = {
        call.get("id")
        for e in events
        if e["type"] == "model_call"
        for call in e["response"].get("tool_calls") or []
    }
    _link_answers(events)
    for i, event in enumerate(events):
        if event["type"] != "model_call":
            continue
        for call in event["response"].get("tool_calls") or []:
            if call.get("id") is not None:
                continue
            answer = next(
                (
                    e
                    for e in events[i + 1 :]
                    if e["type"] == "tool_call"
                    and e["tool"] == call["name"]
                    and e.get("call_id") not in claimed
                ),
                None,
            )
            if answer is not None:
                call["id"] = answer["call_id"]
                claimed.add(answer["call_id"])
    return events


def _link_answers(events: list[dict[str, Any]]) -> None:
    """A tool call recorded without id answers the earliest open request of its name."""
    open_requests: list[dict[str, Any]] = []
    answered = {e.get("call_id") for e in events if e["type"] == "tool_call"}
    for event in events:
        if event["type"] == "model_call":
            calls = event["response"].get("tool_calls") or []
            open_requests.extend(c for c in calls if c.get("id") and c["id"] not in answered)
        elif event["type"] == "tool_call" and event.get("call_id") is None:
            match = next((r for r in open_requests if r["name"] == event["tool"]), None)
            if match is not None:
                event["call_id"] = match["id"]
                open_requests.remove(match)
