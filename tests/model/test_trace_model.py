"""The trace model: built once from a document, written back byte for byte."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corpus_tool.cli import main
from corpus_tool.io import files, schema
from corpus_tool.model.events import (
    EVENT_TYPES,
    ErrorEvent,
    ModelCallEvent,
    ToolCallEvent,
    event_from_doc,
)
from corpus_tool.model.trace import Trace
from corpus_tool.model.values import ABSENT
from tests.conftest import EXAMPLES, TEST_KEY

TRACES = sorted((EXAMPLES / "corpus" / "cases").glob("*/trace.yaml"))
INCIDENTS = sorted((EXAMPLES / "incidents").glob("*.json"))


def _roundtrip(path: Path) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    doc = files.parse_yaml(text, path)
    assert schema.errors("trace", doc) == []
    return text, files.dump_yaml(Trace.from_doc(doc).to_doc())


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.parent.name)
def test_model_example_trace_round_trips_byte_for_byte(path: Path) -> None:
    text, again = _roundtrip(path)
    assert again == text


@pytest.mark.parametrize("incident", INCIDENTS, ids=lambda p: p.stem)
def test_model_added_trace_round_trips_byte_for_byte(
    incident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORPUS_REDACTION_KEY", TEST_KEY)
    assert main(["init", str(tmp_path)]) == 0
    code = main(["-C", str(tmp_path), "add", str(incident), "--id", "c", "--allow-incomplete"])
    assert code == 0
    text, again = _roundtrip(tmp_path / "cases" / "c" / "trace.yaml")
    assert again == text


EVENTS: list[dict[str, Any]] = [
    {"seq": 1, "type": "model_call", "node": "planner", "model": "m",
     "request": {"messages": [], "tools": [], "temperature": 0.0, "params": {"top_p": 1}},
     "response": {"content": None, "tool_calls": [{"id": None, "name": "t", "arguments": {}}],
                  "finish_reason": "tool_calls"},
     "usage": {"in": 1}, "parent": "span-1", "timestamp": "2025-01-01T00:00:00Z",
     "duration_ms": 1.5, "truncated": True, "extra": {"k": 1}},
    {"seq": 2, "type": "tool_call", "tool": "t", "call_id": "c1", "arguments": {"a": 1},
     "result": None, "egress": "h", "idempotency_key": "k"},
    {"seq": 3, "type": "tool_call", "tool": "t", "arguments": {},
     "error": {"type": "TimeoutError", "message": "slow"}},
    {"seq": 4, "type": "tool_call", "tool": "t", "arguments": {}},
    {"seq": 5, "type": "error", "error": {"type": "E", "message": ""}, "tool": "t", "stack": "s"},
    {"seq": 6, "type": "state_change", "key": "k", "value": None},
    {"seq": 7, "type": "state_change", "key": "k"},
    {"seq": 8, "type": "side_effect", "kind": "mail", "target": "u", "data": {"n": 1}},
    {"seq": 9, "type": "handoff", "from": None, "to": "b"},
    {"seq": 10, "type": "retry", "of": 3, "attempt": 2},
]  # fmt: skip


def test_model_event_table_covers_every_event_type() -> None:
    assert {e["type"] for e in EVENTS} == set(EVENT_TYPES)


@pytest.mark.parametrize("doc", EVENTS, ids=lambda d: f"{d['seq']}-{d['type']}")
def test_model_event_documents_round_trip_with_their_key_order(doc: dict[str, Any]) -> None:
    assert schema.errors("trace", {**_trace_shell(), "events": [doc]}) == []
    again = event_from_doc(doc).to_doc()
    assert again == doc
    assert list(again) == list(doc)


def test_model_null_result_is_not_a_lost_result() -> None:
    answered, lost = event_from_doc(EVENTS[1]), event_from_doc(EVENTS[3])
    assert isinstance(answered, ToolCallEvent) and isinstance(lost, ToolCallEvent)
    assert answered.result is None and answered.answered
    assert lost.result is ABSENT and not lost.answered


def test_model_events_are_frozen_and_typed() -> None:
    call = event_from_doc(EVENTS[0])
    assert isinstance(call, ModelCallEvent)
    assert call.response.tool_calls[0].name == "t"
    error = event_from_doc(EVENTS[4])
    assert isinstance(error, ErrorEvent) and error.error.type == "E"
    with pytest.raises(AttributeError):
        call.seq = 2  # type: ignore[misc]


def _trace_shell() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "id": "t",
        "source": {"format": "native", "sha256": "0" * 64},
        "recorded": {"started_at": "2025-06-01T10:00:00Z", "agent": {}, "models": []},
        "input": {},
        "events": [],
        "terminal": {"status": "unknown"},
        "redaction": {"policy": 1, "key_id": None, "replaced": 0},
    }
