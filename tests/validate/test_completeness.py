"""Completeness rules on trace bodies: each rule with traces that pass and traces that fail."""

from __future__ import annotations

from typing import Any

import pytest

from corpus_tool.validate.completeness import problems


def _body(*events: dict[str, Any], **recorded: Any) -> dict[str, Any]:
    facts = {
        "started_at": "2025-06-01T10:00:00Z",
        "agent": {"name": "a", "version": "1"},
        **recorded,
    }
    return {"recorded": facts, "events": list(events), "terminal": {"status": "succeeded"}}


def _model(seq: int, *calls: tuple[str | None, str], model: str | None = "m") -> dict[str, Any]:
    return {
        "seq": seq,
        "type": "model_call",
        "model": model,
        "request": {"messages": []},
        "response": {
            "content": None if calls else "done",
            "tool_calls": [{"id": i, "name": n, "arguments": {}} for i, n in calls],
        },
    }


def _tool(seq: int, name: str, call_id: str | None = None, **outcome: Any) -> dict[str, Any]:
    event = {"seq": seq, "type": "tool_call", "tool": name, "arguments": {}, **outcome}
    if call_id:
        event["call_id"] = call_id
    return event


OK = {
    "linked by id": _body(_model(1, ("c1", "a")), _tool(2, "a", "c1", result=1)),
    "linked by name and order": _body(
        _model(1, (None, "a"), (None, "b")),
        _tool(2, "a", result=1),
        _tool(3, "b", error={"type": "E", "message": "m"}),
    ),
    "retry shares the call id": _body(
        _model(1, ("c1", "a")),
        _tool(2, "a", "c1", error={"type": "T", "message": ""}),
        _tool(3, "a", "c1", result=2),
    ),
    "deterministic tool without a model": _body(_tool(1, "lookup", result={})),
    "null result is a result": _body(_tool(1, "a", result=None)),
    "timestamps in order": _body(
        {**_tool(1, "a", result=1), "timestamp": "2025-06-01T10:00:01Z"},
        {**_tool(2, "a", result=1), "timestamp": "2025-06-01T10:00:01.5+00:00"},
    ),
    "agent version by config hash": _body(agent={"name": "a", "config_hash": "h"}),
}

BAD = {
    "duplicate seq": (
        _body(_tool(1, "a", result=1), _tool(1, "b", result=1)),
        "completeness.seq",
        "seq 1 appears twice",
    ),
    "decreasing seq": (
        _body(_tool(2, "a", result=1), _tool(1, "b", result=1)),
        "completeness.seq",
        "not increasing",
    ),
    "no result": (_body(_tool(1, "a")), "completeness.tool_result", "neither result nor error"),
    "both": (
        _body(_tool(1, "a", result=1, error={"type": "E", "message": ""})),
        "completeness.tool_result",
        "both",
    ),
    "request unanswered": (
        _body(_model(1, ("c1", "a"))),
        "completeness.tool_link",
        "no tool_call event answers it",
    ),
    "orphan call id": (
        _body(_tool(1, "a", "c9", result=1)),
        "completeness.tool_link",
        "answers no model request",
    ),
    "bad timestamp": (
        _body({**_tool(1, "a", result=1), "timestamp": "yesterday"}),
        "completeness.timestamp",
        "not ISO 8601",
    ),
    "time goes back": (
        _body(
            {**_tool(1, "a", result=1), "timestamp": "2025-06-01T10:00:02Z"},
            {**_tool(2, "a", result=1), "timestamp": "2025-06-01T10:00:01Z"},
        ),
        "completeness.timestamp",
        "goes back",
    ),
    "no model id": (_body(_model(1, model=None)), "completeness.version", "names no model id"),
    # what a recorder writes when it did not know the model is no model id either
    "model unknown": (
        _body(_model(1, model="unknown")),
        "completeness.version",
        "names no model id (`unknown` is not one)",
    ),
    "no agent version": (
        _body(agent={"name": "a"}),
        "completeness.version",
        "agent name and version",
    ),
    "no start": (_body(started_at=None), "completeness.version", "start time is missing"),
    "truncated": (
        _body({**_tool(1, "a", result=1), "truncated": True}),
        "completeness.truncated",
        "truncated",
    ),
}


@pytest.mark.parametrize("name", sorted(OK))
def test_completeness_accepts(name: str) -> None:
    assert problems(OK[name]) == []


@pytest.mark.parametrize("name", sorted(BAD))
def test_completeness_rejects(name: str) -> None:
    body, rule, needle = BAD[name]
    found = problems(body)
    assert [p.rule for p in found] == [rule], found
    assert needle in found[0].message


def test_completeness_lists_every_problem() -> None:
    body = _body(_model(1, ("c1", "a"), model=None), _tool(1, "b"), started_at="soon")
    rules = sorted(p.rule for p in problems(body))
    assert rules == [
        "completeness.seq",
        "completeness.timestamp",
        "completeness.tool_link",
        "completeness.tool_result",
        "completeness.version",
    ]
