"""AgentOps exports: a scripted CrewAI-style run (a ReAct agent with one tool) written in the
shape the AgentOps API exports (`{trace, spans}`, nested `span_attributes`, as the project's
sample shows), imported and replayed strictly. The agentops SDK only ships spans to the
AgentOps service, which writes this shape; the script is the ground truth.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from corpus_tool import Runtime, ToolError
from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems
from tests.replaying import replay_case

MODEL = "ollama/llama3:latest"
SYSTEM = "You are Order Clerk. You look orders up.\nUse the tools, then give a Final Answer."
TASK = "\nCurrent Task: What is the status of order A100?\n\nThought:"
ORDER = {"order_id": "A100", "status": "delivered"}
FIRST = 'Thought: I should look it up.\nAction: get_order\nAction Input: {"order_id": "A100"}'
FINAL = "Thought: I know it now.\nFinal Answer: Order A100 was delivered."


def _span(
    span_id: str, parent: str, name: str, second: int, attrs: dict[str, Any]
) -> dict[str, Any]:
    start = f"2025-08-04T15:12:{second:02d}.000000+00:00"
    end = f"2025-08-04T15:12:{second:02d}.500000+00:00"
    return {
        "freeplan_truncated": False, "span_id": span_id, "parent_span_id": parent,
        "span_name": name, "span_kind": "Client", "start_time": start, "end_time": end,
        "status_code": "OK", "status_message": "", "attributes": {},
        "resource_attributes": {"service": {"name": "agentops"}}, "span_attributes": attrs,
        "event_timestamps": [], "event_names": [], "event_attributes": [],
    }  # fmt: skip


def _llm(span_id: str, second: int, prompt: list[dict[str, str]], answer: str) -> dict[str, Any]:
    attrs = {
        "agentops": {"span": {"kind": "llm"}, "entity": {"name": "LLM"}},
        "gen_ai": {
            "prompt": prompt, "completion": [{"role": "assistant", "content": answer}],
            "request": {"model": MODEL}, "system": "crewai",
            "usage": {"prompt_tokens": "50", "completion_tokens": "20"},
        },
    }  # fmt: skip
    return _span(span_id, "agent1", f"{MODEL}.llm", second, attrs)


def write_export(path: Path, tool_status: str = "success") -> Path:
    """The AgentOps export of the scripted run."""
    asked = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    seen = [*asked, {"role": "assistant", "content": FIRST},
            {"role": "user", "content": f"Observation: {ORDER}"}]  # fmt: skip
    tool = {
        "agentops": {"span": {"kind": "tool"}},
        "tool": {"name": "get_order", "parameters": str({"order_id": "A100"}),
                 "result": str(ORDER), "status": tool_status},
    }  # fmt: skip
    agent = {"agentops": {"span": {"kind": "agent"}, "entity": {"name": "Agent"}},
             "agent": {"role": "Order Clerk", "models": MODEL}}  # fmt: skip
    crew = {"agentops": {"span": {"kind": "workflow"}, "entity": {"name": "Crew"}}}
    spans = [
        _span("crew", "", "crewai.workflow", 1, crew),
        _span("agent1", "crew", "Order Clerk.agent", 2, agent),
        _llm("llm1", 3, asked, FIRST),
        _span("tool1", "agent1", "get_order.tool", 4, tool),
        _llm("llm2", 5, seen, FINAL),
    ]
    trace = {
        "freeplan_truncated": False, "trace_id": "9f0c2a7d", "root_span_name": "crewai.workflow",
        "start_time": "2025-08-04T15:12:01.000000+00:00", "span_count": len(spans),
    }  # fmt: skip
    path.write_text(json.dumps({"trace": trace, "spans": spans}, indent=1), encoding="utf-8")
    return path


def react_agent(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """CrewAI's ReAct loop: the tool and its input are read from the answer text."""
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    while True:
        reply = rt.model(messages, model=MODEL)
        text = reply.content or ""
        if "Final Answer:" in text:
            return {"status": "succeeded", "output": text}
        found = re.search(r"Action: (\w+)\nAction Input: (.*)", text)
        assert found is not None
        try:
            seen: Any = rt.tool(found.group(1), json.loads(found.group(2)))
        except ToolError as err:
            seen = err.message
        messages += [
            {"role": "assistant", "content": text},
            {"role": "user", "content": f"Observation: {seen}"},
        ]


def test_agentops_export_holds_what_the_script_ran(tmp_path: Path) -> None:
    (run,) = load(write_export(tmp_path / "agentops.json"))
    body = run.body
    assert run.format == "agentops"
    assert calls(body) == [("get_order", {"order_id": "A100"}, ORDER)]
    models = [e for e in body["events"] if e["type"] == "model_call"]
    assert [m["response"]["content"] for m in models] == [FIRST, FINAL]
    assert {m["node"] for m in models} == {"Order Clerk"}
    assert body["recorded"]["agent"]["name"] == "Crew"
    assert body["recorded"]["models"] == [MODEL]
    assert body["terminal"] == {"status": "succeeded", "output": FINAL}
    assert problems(body) == []


def test_agentops_case_validates_and_replays_strictly(tmp_path: Path, corpus: Path) -> None:
    path = write_export(tmp_path / "agentops.json")
    assert main(["-C", str(corpus), "add", str(path), "--id", "ao"]) == 0
    assert main(["-C", str(corpus), "validate"]) == 0
    result = replay_case(corpus / "cases/ao", react_agent)
    assert result.divergence is None, result.divergence
    assert result.terminal.to_doc() == {"status": "succeeded", "output": FINAL}


def test_agentops_tool_status_error_is_the_tools_error(tmp_path: Path) -> None:
    (run,) = load(write_export(tmp_path / "agentops.json", tool_status="error"))
    assert calls(run.body) == [
        ("get_order", {"order_id": "A100"}, {"type": "ToolError", "message": str(ORDER)})
    ]


def test_agentops_free_plan_cut_is_reported(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_export(tmp_path / "agentops.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["spans"][3]["freeplan_truncated"] = True
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["-C", str(corpus), "add", str(path)]) == 2
    assert "event at seq 2 was truncated at capture" in capsys.readouterr().err
