"""Trace facts from the YAML event walk agree with loading the whole document."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_tool.select.facts import (
    TraceFacts,
    expected_facts,
    loaded_trace_facts,
    trace_facts,
    waiver_case,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "cases"

TRICKY = {
    "flow style": b"events: [{type: tool_call, tool: a}, {type: model_call, "
    b"response: {tool_calls: [{name: b}, {name: c}]}}]\n",
    "tool_call ignores its response": b"events:\n- {type: tool_call, tool: a, "
    b"response: {tool_calls: [{name: z}]}}\n",
    "alias": b"x: &t create_refund\nevents:\n- {type: tool_call, tool: *t}\n",
    "alias in an ignored place": b"input: &i {a: 1}\n"
    b"events:\n- {type: tool_call, tool: b, arguments: *i}\n",
    "not a string": b"events:\n- {type: tool_call, tool: null}\n- {type: tool_call, tool: 12}\n",
    "quoted": b"events:\n- {type: tool_call, tool: 'null'}\n- {type: 'tool_call', tool: \"12\"}\n",
    "events not a list": b"events: {type: tool_call, tool: a}\n",
    "no events": b"id: x\n",
    "scalars in events": b"events: [1, two, {type: tool_call, tool: a}]\n",
    "deep nesting": b"events:\n- type: tool_call\n  tool: a\n"
    b"  result: {x: [{tool: no}, [1, [2]]]}\n",
    "key order": b"events:\n- {tool: a, type: tool_call}\n",
    "list root": b"- events\n",
    "empty": b"",
    "bad yaml": b"events: [unclosed\n",
    "two documents": b"events: []\n---\nevents: []\n",
    "explicit tag": b"events:\n- {type: tool_call, tool: !!str 12}\n",
    "not utf-8": b"events: [\xff]\n",
    "merge key": b"base: &b {type: tool_call, tool: a}\nevents:\n- {<<: *b}\n",
    "aliased event list": b"x: &e [{type: tool_call, tool: a}]\nevents: *e\n",
    "repeated key": b"events: [{type: tool_call, tool: a}]\nevents: []\n",
    "tagged list": b"events: !!seq [{type: tool_call, tool: a}]\n",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_trace_facts_walk_agrees_with_the_loader(name: str) -> None:
    raw = TRICKY[name]
    assert trace_facts(raw) == loaded_trace_facts(raw)


def test_trace_facts_walk_agrees_on_the_example_corpus() -> None:
    traces = sorted(EXAMPLES.glob("*/trace.yaml"))
    assert traces
    for path in traces:
        raw = path.read_bytes()
        assert trace_facts(raw) == loaded_trace_facts(raw), path


def test_trace_facts_reads_tools_and_event_count() -> None:
    raw = (EXAMPLES / "refund-success" / "trace.yaml").read_bytes()
    facts = trace_facts(raw)
    assert "create_refund" in facts.tools and facts.events > 2
    assert trace_facts(b"[1, 2]") == TraceFacts(readable=False)


def test_expected_and_waiver_facts() -> None:
    facts = expected_facts(b"tier: full\ntags: [b, a, b]\n")
    assert (facts.tier, facts.tags) == ("full", ("a", "b"))
    assert not expected_facts(b"tags: [\n").readable
    assert waiver_case(b"case: refund-ok\n") == "refund-ok"
    assert waiver_case(b"kind: redaction\n") is None
