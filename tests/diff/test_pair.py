"""The pair diff on planted edits of a recorded trajectory, and the entities of an output."""

from __future__ import annotations

import dataclasses

import yaml

from corpus_tool.diff.entities import entities
from corpus_tool.diff.pair import compare
from corpus_tool.diff.verdict import structural, with_judge
from corpus_tool.model.events import StateChangeEvent, ToolCallEvent
from corpus_tool.model.trace import Terminal, Trace, Trajectory
from tests.conftest import EXAMPLES


def _run(case: str) -> Trajectory:
    path = EXAMPLES / "corpus/cases" / case / "trace.yaml"
    trace = Trace.from_doc(yaml.safe_load(path.read_text(encoding="utf-8")))
    return Trajectory(trace.events, trace.terminal)


def test_one_inserted_step_leaves_every_later_step_aligned() -> None:
    a = _run("refund-success")
    extra = ToolCallEvent(seq=99, tool="check_refund", arguments={"refund_id": "R1"}, result={})
    b = dataclasses.replace(a, events=(*a.events[:2], extra, *a.events[2:]))
    found = compare(a, b)
    assert [(s.number, s.change, s.b_seq) for s in found.steps] == [(3, "added", 99)]
    assert found.tools_added == ("check_refund",) and not found.tools_dropped
    assert structural(found).verdict == "changed"


def test_two_calls_swapped_are_reported_as_reordered() -> None:
    a = _run("inventory-zero-stock")
    events = list(a.events)
    events[1], events[2] = events[2], events[1]  # get_sales before search_inventory
    found = compare(a, dataclasses.replace(a, events=tuple(events)))
    assert found.tools_reordered in (("get_sales",), ("search_inventory",))
    assert not found.tools_dropped and not found.tools_added


def test_verdict_rules_on_planted_losses() -> None:
    a = _run("refund-success")
    calls = [e for e in a.events if not isinstance(e, ToolCallEvent) or e.tool != "get_order"]
    lost_tool = compare(a, dataclasses.replace(a, events=tuple(calls)))
    assert structural(lost_tool).verdict == "regression"
    assert "get_order" in structural(lost_tool).reasons[0]

    error = StateChangeEvent(seq=50, key="x", value=1)
    wrong_end = dataclasses.replace(
        a, events=(*a.events, error), terminal=Terminal("failed", a.terminal.output)
    )
    assert structural(compare(a, wrong_end)).verdict == "regression"

    better = dataclasses.replace(a, terminal=Terminal("succeeded", a.terminal.output))
    assert structural(compare(a, better)).verdict == "changed"  # not worse: same tier
    assert with_judge(compare(a, better), "worse").verdict == "warning"
    assert with_judge(compare(a, better), "better").verdict == "changed"
    assert with_judge(compare(a, a), "wrong").verdict == "identical"


def test_entities_normalize_rewording_and_catch_losses() -> None:
    a = "Your refund R904 of 199.00 CNY was created on 2025-06-01; mail a1@redacted.invalid."
    b = "Refund R904 (CNY 199) created 2025/6/1, we wrote to A1@redacted.invalid"
    assert {e.key for e in entities(a)} == {e.key for e in entities(b)}
    assert {e.key for e in entities(a)} == {
        ("id", "R904"),
        ("amount", "199 CNY"),
        ("date", "2025-06-01"),
        ("email", "a1@redacted.invalid"),
    }
    assert ("amount", "1.99 CNY") in {e.key for e in entities("refund of 1.99 CNY")}
    assert ("id", "R900") in {e.key for e in entities("退款单号R900已提交，金额199元")}
    assert ("amount", "199 CNY") in {e.key for e in entities("退款单号R900已提交，金额199元")}
