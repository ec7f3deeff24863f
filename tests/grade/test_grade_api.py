"""The public API: result order and presence, CHECK_NAMES against the schema, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.errors import InputError
from corpus_tool.grade import CHECK_NAMES, GRADERS, CheckResult, grade
from corpus_tool.io import schema
from tests.grade.grade_trajectories import call, effect, end, model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "cases"

EVERYTHING: dict[str, Any] = {
    "output": {"contains": ["R1"], "not_contains": ["x"], "regex": ["R"]},
    "terminal": {"status": "succeeded"},
    "idempotency": {"tools": ["pay"]},
    "side_effects": [{"type": "paid", "count": 1}],
    "egress": {"allowed": ["*.internal"]},
    "retries": {"max": 0},
    "tools": {
        "max_calls": {"pay": 1},
        "args": [{"tool": "pay", "match": {"a": 1}}],
        "order": [["look", "pay"]],
        "allowed": ["look", "pay"],
        "forbidden": ["drop"],
        "required": ["pay"],
    },
    "errors": {"required": [], "forbidden": ["E"]},
}
RUN = [model(1), call(2, "look"), call(3, "pay", {"a": 1}, egress="p.internal"), effect(4, "paid")]


def test_grade_results_follow_check_names_order() -> None:
    results = grade(EVERYTHING, RUN, end("succeeded", "R1"))
    names = [r.name for r in results]
    assert names == [n for n in CHECK_NAMES if n != "output.similar"]
    assert all(r.passed for r in results), [r.message for r in results if not r.passed]


def test_grade_only_keys_present_are_checked() -> None:
    results = grade({"tools": {"forbidden": ["drop"]}}, RUN, end())
    assert [r.name for r in results] == ["tools.forbidden"]
    assert grade({}, RUN, end()) == []


def test_grade_unknown_expect_key_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"unknown key.*toolz.*known: errors, tools"):
        grade({"toolz": {}}, RUN, end())


def test_grade_check_names_cover_every_schema_key() -> None:
    expect_schema = schema.load_schema("expected")["properties"]["expect"]["properties"]
    assert list(GRADERS) == list(expect_schema)
    for key, grader in GRADERS.items():
        described = json.dumps(expect_schema[key])
        for name in grader.checks:
            assert name.startswith(f"{key}.")
            assert name in described  # the schema documents every check name
    assert len(set(CHECK_NAMES)) == len(CHECK_NAMES) == 17


def test_grade_results_serialize_as_json() -> None:
    results = grade(EVERYTHING, RUN, end("failed", None))
    text = json.dumps([r.to_dict() for r in results], ensure_ascii=False)
    assert '"name": "terminal.status"' in text
    assert '"passed": false' in text


def test_grade_check_result_is_frozen() -> None:
    result = CheckResult("terminal.status", True, "ended succeeded")
    assert result.details == {}
    with pytest.raises(AttributeError):
        result.passed = False  # type: ignore[misc]


def test_grade_lost_retry_story_names_the_double_refund() -> None:
    # The example trace is recorded from the fixed agent (one key, one refund); the incident's
    # bug is rebuilt from it: the retry without its key, and payments refunding twice.
    trace_path = EXAMPLES / "create-refund-lost-retry" / "trace.yaml"
    trace = yaml.safe_load(trace_path.read_text(encoding="utf-8"))
    expect = {
        "idempotency": {"tools": ["create_refund"]},
        "side_effects": [{"type": "refund_created", "count": 1}],
        "retries": {"max": 1},
        "terminal": {"status": "submitted"},
    }
    fixed = {r.name: r for r in grade(expect, trace["events"], trace["terminal"])}
    assert all(r.passed for r in fixed.values())
    buggy = [dict(e) for e in trace["events"]]
    retry = next(e for e in buggy if e["type"] == "tool_call" and "result" in e and e["seq"] > 4)
    retry.pop("idempotency_key", None)
    retry["arguments"] = {k: v for k, v in retry["arguments"].items() if k != "idempotency_key"}
    buggy.insert(4, {"seq": 5, "type": "side_effect", "kind": "refund_created"})
    results = {r.name: r for r in grade(expect, buggy, trace["terminal"])}
    assert f"create_refund (seq {retry['seq']}) repeats seq 4" in (
        results["idempotency.reuse_key"].message
    )
    assert not results["side_effects.count"].passed
    assert results["retries.max"].passed
    assert results["terminal.status"].passed


def test_grade_tolerates_events_without_seq_and_string_errors() -> None:
    events = [
        {"type": "tool_call", "tool": "pay", "arguments": {}, "error": "TimeoutError: slow"},
        {"type": "tool_call", "tool": "pay", "arguments": {}},
    ]
    expect = {"errors": {"forbidden": ["TimeoutError"]}, "retries": {"max": 0}}
    forbidden, retries = grade(expect, events, end())
    assert "TimeoutError at seq 1 (tool pay): slow" in forbidden.message
    assert "pay repeated at seq 2 after TimeoutError at seq 1" in retries.message


def test_grade_tables_implement_exactly_the_model_check_names() -> None:
    from corpus_tool.model.checks import GRADER_CHECKS

    assert tuple(n for g in GRADERS.values() for n in g.checks) == GRADER_CHECKS
