"""Pairing the tool calls a model requested with the tool_call events that answered them."""

from __future__ import annotations

import copy
from typing import Any

from corpus_tool.ingest.build import tool_event
from corpus_tool.ingest.coerce import error_text, result_value


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


def adopt_requested_arguments(events: list[dict[str, Any]], bare: list[dict[str, Any]]) -> None:
    """Tool calls whose source logged only an argument's value take the model's arguments.

    LangChain's tracers log a one-argument tool's input as the bare value (`A100`); the model
    asked for `{"order_id": "A100"}`, and that is what ran. The request is found by call id,
    else as the earliest unclaimed request of that tool before the call.
    """
    claimed: set[int] = set()
    for event in bare:
        request = _request_for(events, event, claimed)
        if request is not None:
            event["arguments"] = copy.deepcopy(request.get("arguments") or {})


def _request_for(
    events: list[dict[str, Any]], event: dict[str, Any], claimed: set[int]
) -> dict[str, Any] | None:
    candidates: list[dict[str, Any]] = [
        call
        for e in events[: _position(events, event)]
        if e["type"] == "model_call"
        for call in e["response"].get("tool_calls") or []
        if call.get("name") == event["tool"] and id(call) not in claimed
    ]
    by_id = [c for c in candidates if event.get("call_id") and c.get("id") == event["call_id"]]
    chosen = next(iter(by_id or candidates), None)
    if chosen is not None:
        claimed.add(id(chosen))
    return chosen


def _position(events: list[dict[str, Any]], event: dict[str, Any]) -> int:
    """The index of this very event (two events may be equal as values)."""
    return next(i for i, e in enumerate(events) if e is event)


def answers_from_requests(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool calls a chat-only trace shows only as the next model request's tool messages.

    Instrumentations of the model client alone (`opentelemetry-instrumentation-openai-v2`)
    record no tool spans; each result is the `role: tool` message, linked by `tool_call_id`,
    in a later request. A requested call no tool_call event answers (by id, or an id-less one
    of its name) becomes a tool_call placed before that request: the content is the result,
    or the error when it reads `Error: [Type: ]message` (see `values.error_text`).
    """
    out = list(events)
    for i, event in enumerate(events):
        if event["type"] != "model_call":
            continue
        for call in event["response"].get("tool_calls") or []:
            if not call.get("id") or _answered(events[i + 1 :], call):
                continue
            shown = _shown(events[i + 1 :], call["id"])
            if shown is not None:
                later, content = shown
                out.insert(_position(out, later), _answer(call, content))
    return out


def _answered(later: list[dict[str, Any]], call: dict[str, Any]) -> bool:
    return any(
        e["type"] == "tool_call"
        and (e.get("call_id") == call["id"] or (not e.get("call_id") and e["tool"] == call["name"]))
        for e in later
    )


def _shown(later: list[dict[str, Any]], call_id: str) -> tuple[dict[str, Any], Any] | None:
    for event in later:
        if event["type"] != "model_call":
            continue
        for msg in event["request"]["messages"]:
            if isinstance(msg, dict) and (msg.get("role"), msg.get("tool_call_id")) == (
                "tool",
                call_id,
            ):
                return event, msg.get("content")
    return None


def _answer(call: dict[str, Any], content: Any) -> dict[str, Any]:
    return tool_event(
        call["name"], call["id"], copy.deepcopy(call.get("arguments") or {}),
        result_value(content), error=error_text(content),
        extra={"source": "the tool message of the next model request"},
    )  # fmt: skip
