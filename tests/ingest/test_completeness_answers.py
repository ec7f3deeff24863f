"""Completeness: a result or answer the case claims must be one the source held.

A tool call stored with `result: null` where the source recorded no result, or a model call
stored without answer, would replay things that never happened; `corpus add` refuses both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Cli


def _tool_spans(doc: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [o for o in doc["observations"] if o["name"] == name and o["type"] == "SPAN"]


def test_langfuse_tool_without_output_is_refused_not_stored_as_null(
    samples: Path, corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    doc = json.loads((samples / "langfuse/langgraph-2025-08-22.json").read_text(encoding="utf-8"))
    (tool,) = _tool_spans(doc, "Web-Search")
    assert tool["output"] is not None
    assert cli("-C", corpus_dir, "add", samples / "langfuse/langgraph-2025-08-22.json").code == 0
    tool["output"] = None  # what the export holds when Langfuse captured no output
    lost = tmp_path / "lost-output.json"
    lost.write_text(json.dumps(doc), encoding="utf-8")
    result = cli("-C", corpus_dir, "add", lost, "--id", "lost")
    assert result.code == 2
    assert "tool_call Web-Search (seq 2) has neither result nor error" in result.err


def _incident(response: dict[str, Any]) -> dict[str, Any]:
    return {
        "schemaVersion": "1.0",
        "traceId": "t-answer",
        "startedAt": "2025-06-01T10:00:00Z",
        "agent": {"name": "a", "version": "1"},
        "events": [
            {"seq": 1, "type": "llm_request", "model": "m1",
             "messages": [{"role": "user", "content": "hi"}], "response": response},
            {"seq": 2, "type": "final", "status": "succeeded", "output": "hi"},
        ],
    }  # fmt: skip


def test_model_call_without_answer_is_refused_and_kept_as_known_unknown(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    incident = tmp_path / "no-answer.json"
    doc = _incident({"content": None})
    incident.write_text(json.dumps(doc), encoding="utf-8")
    answer = doc["events"][0]["response"]
    assert answer["content"] is None and "toolCalls" not in answer
    result = cli("-C", corpus_dir, "add", incident, "--id", "no-answer")
    assert result.code == 2
    assert "model call at seq 1 holds no answer" in result.err
    kept = cli("-C", corpus_dir, "add", incident, "--id", "no-answer", "--allow-incomplete")
    assert kept.code == 0, kept.err
    expected = yaml.safe_load((corpus_dir / "cases/no-answer/expected.yaml").read_text())
    assert expected["status"] == "known_unknown"
    assert any("holds no answer" in p for p in expected["incomplete"])
    assert cli("-C", corpus_dir, "validate").code == 0


def test_model_call_whose_empty_answer_the_source_records_is_kept(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    incident = tmp_path / "empty.json"
    incident.write_text(json.dumps(_incident({"content": "", "finishReason": "stop"})))
    result = cli("-C", corpus_dir, "add", incident, "--id", "empty")
    assert result.code == 0, result.err


@pytest.mark.parametrize(
    ("response", "kept"),
    [
        ({"content": None, "finishReason": "stop"}, False),  # a normal stop that said nothing
        ({"content": None, "finishReason": "tool_calls"}, False),  # tools asked, none recorded
        ({"finishReason": "end_turn"}, False),
        ({"content": None, "finishReason": "unknown"}, False),
        ({"content": None, "finishReason": "content_filter"}, True),  # why it is empty
        ({"content": None, "finishReason": "length"}, True),
        ({"content": "", "finishReason": "stop"}, True),  # the model's own empty text
    ],
)
def test_a_finish_reason_counts_as_an_answer_only_where_it_explains_the_empty_one(
    response: dict[str, Any], kept: bool, corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    incident = tmp_path / "finish.json"
    incident.write_text(json.dumps(_incident(response)), encoding="utf-8")
    result = cli("-C", corpus_dir, "add", incident, "--id", "finish")
    assert result.code == (0 if kept else 2), result.err
    assert ("model call at seq 1 holds no answer" in result.err) is not kept
