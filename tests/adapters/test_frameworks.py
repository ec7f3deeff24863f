"""Each framework, as a user runs it: the framework's own export -> `corpus add` -> `corpus
check` (replay workers, strict) through the adapter; then changes to the agent's code."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from corpus_tool.cli import main
from examples import record_framework_incidents as story
from tests.adapters.team import (
    FRAMEWORKS,
    PLANTED,
    checked,
    edit,
    exported,
    new_corpus,
    recorded,
    team_repo,
    tool_calls,
)

NORMALIZER = "AfterValidator(str.strip)"
"""How every example tool reads an order id; the changed code lower-cases it instead."""


def _added(tmp_path: Path, framework: str, incident: Path) -> Path:
    corpus = new_corpus(team_repo(tmp_path, framework), framework)
    assert main(["-C", str(corpus), "add", str(incident), "--id", "refund"]) == 0
    return corpus


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_framework_export_replays_strictly_and_a_changed_argument_diverges(
    tmp_path: Path, framework: str
) -> None:
    corpus = _added(tmp_path, framework, exported(framework, tmp_path))
    trace = yaml.safe_load((corpus / "cases/refund/trace.yaml").read_text(encoding="utf-8"))
    assert tool_calls(trace["events"]) == PLANTED  # the import kept what the framework did

    code, report = checked(corpus)
    (case,) = report["cases"]
    assert (code, case["verdict"], case["divergence"]) == (0, "passed", None), case
    assert tool_calls(case["trajectory"]["events"]) == PLANTED
    assert case["trajectory"]["terminal"]["output"] == story.ANSWER

    agent = corpus.parent / "examples" / f"{framework}_agent" / "agent.py"
    edit(agent, NORMALIZER, "AfterValidator(str.lower)")
    code, report = checked(corpus)
    (case,) = report["cases"]
    divergence = case["divergence"]
    assert (code, case["verdict"], divergence["kind"]) == (1, "failed", "ToolArguments")
    assert divergence["expected"]["arguments"] == {"order_id": "O-1001"}
    assert divergence["actual"]["arguments"] == {"order_id": "o-1001"}


def test_pydantic_ai_extra_tool_changes_the_request_its_export_recorded(tmp_path: Path) -> None:
    corpus = _added(tmp_path, "pydantic_ai", exported("pydantic_ai", tmp_path))
    agent = corpus.parent / "examples" / "pydantic_ai_agent" / "agent.py"
    edit(agent, "def run(", EXTRA_TOOL.format(decorator="@refund_desk.tool_plain") + "def run(")
    code, report = checked(corpus)
    divergence = report["cases"][0]["divergence"]
    assert (code, divergence["kind"], divergence["step"]) == (1, "ModelRequest", 1)
    assert divergence["diff"][0]["path"].startswith("$.request.tools")


EXTRA_TOOL = '''{decorator}
def cancel_order(order_id: OrderId) -> dict[str, Any]:
    """Cancel an order that has not shipped."""
    return {{"order_id": order_id, "state": "cancelled"}}


'''


def test_langchain_recorded_through_the_adapter_replays_strictly(tmp_path: Path) -> None:
    incident = recorded(tmp_path)
    corpus = _added(tmp_path, "langchain", incident)
    trace = yaml.safe_load((corpus / "cases/refund/trace.yaml").read_text(encoding="utf-8"))
    assert trace["source"]["format"] == "native"
    assert tool_calls(trace["events"]) == PLANTED
    failed = [e for e in trace["events"] if e["type"] == "tool_call" and "error" in e]
    assert [e["error"]["type"] for e in failed] == ["TimeoutError"]  # the shop's planted failure

    code, report = checked(corpus)
    case = report["cases"][0]
    assert (code, case["verdict"], case["notes"]) == (0, "passed", []), case
    assert tool_calls(case["trajectory"]["events"]) == PLANTED

    # a native recording holds the tool definitions: an extra tool is a changed request
    agent = corpus.parent / "examples" / "langchain_agent" / "agent.py"
    edit(agent, "TOOLS: list[BaseTool] = [get_order, create_refund]",
         EXTRA_TOOL.format(decorator="@tool")
         + "TOOLS: list[BaseTool] = [get_order, create_refund, cancel_order]")  # fmt: skip
    code, report = checked(corpus)
    divergence = report["cases"][0]["divergence"]
    assert (code, divergence["kind"], divergence["step"]) == (1, "ModelRequest", 1)
    assert any(d["path"].startswith("$.request.tools") for d in divergence["diff"])
