"""LangChain traced by `openinference-instrumentation-langchain`, exported as OTel span JSON.

The instrumentation logs a one-argument tool's input as the bare value and its output as the
serialized ToolMessage; the case must still hold what ran: the tool's argument object, the
message's content, and the exception the tool raised.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from openinference.instrumentation.langchain import LangChainInstrumentor

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems
from tests.ingest.langchain_loop import tool_loop
from tests.ingest.otel_export import recording
from tests.ingest.replaying import chat_agent
from tests.replaying import replay_case

SYSTEM = "Answer refund questions."
ORDER = {"order_id": "A100", "eligible": True}


class ScriptedChatModel(GenericFakeChatModel):
    model: str = "fake-chat-1"


def _run(tmp_path: Path) -> tuple[Path, list[tuple[str, dict[str, Any], Any]]]:
    """The scripted run; returns the span file and what the tools really got and gave."""
    truth: list[tuple[str, dict[str, Any], Any]] = []

    @tool
    def get_order(order_id: str) -> str:
        """An order by id."""
        truth.append(("get_order", {"order_id": order_id}, ORDER))
        return json.dumps(ORDER)

    @tool
    def check_refund(order_id: str, amount: int) -> str:
        """Whether a refund can go ahead."""
        err = TimeoutError("refund_check_timeout")
        truth.append(("check_refund", {"order_id": order_id, "amount": amount}, err))
        raise err

    model = ScriptedChatModel(messages=iter([
        AIMessage(content="", tool_calls=[
            {"name": "get_order", "args": {"order_id": "A100"}, "id": "call_1"},
            {"name": "check_refund", "args": {"order_id": "A100", "amount": 500}, "id": "call_2"},
        ]),
        AIMessage(content="The refund check timed out."),
    ]))  # fmt: skip
    loop = tool_loop(model, [get_order, check_refund], SYSTEM, TimeoutError,
                     lambda err: f"Error: {type(err).__name__}: {err}")  # fmt: skip

    with recording("refund-service") as (provider, exporter):
        instrumentor = LangChainInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
        try:
            chain = RunnableLambda(loop).with_config(run_name="refund-agent")
            assert chain.invoke("Refund order A100") == "The refund check timed out."
        finally:
            instrumentor.uninstrument()
        spans = exporter.get_finished_spans()
    path = tmp_path / "langchain-spans.json"
    path.write_text("[" + ",".join(s.to_json() for s in spans) + "]")
    return path, truth


def _expected(truth: list[tuple[str, dict[str, Any], Any]]) -> list[tuple[str, Any, Any]]:
    return [
        (name, args, {"type": type(out).__name__, "message": str(out)})
        if isinstance(out, Exception)
        else (name, args, out)
        for name, args, out in truth
    ]


def test_langchain_openinference_case_holds_what_ran(tmp_path: Path) -> None:
    path, truth = _run(tmp_path)
    (run,) = load(path)
    assert run.format == "openinference"
    assert calls(run.body) == _expected(truth)
    tool_events = [e for e in run.body["events"] if e["type"] == "tool_call"]
    assert [e["call_id"] for e in tool_events] == ["call_1", "call_2"]
    assert problems(run.body) == []


def test_langchain_openinference_case_replays_strictly(tmp_path: Path, corpus: Path) -> None:
    path, truth = _run(tmp_path)
    assert main(["-C", str(corpus), "add", str(path), "--id", "lc-oi-refund"]) == 0
    agent = chat_agent(
        SYSTEM, "fake-chat-1",
        on_error=lambda err: f"Error: {err.type}: {err.message}",
        result_text=json.dumps, named_results=True,
        # the invocation parameters LangChain reports for the scripted chat model
        params={"_type": "generic-fake-chat-model", "stop": None},
    )  # fmt: skip
    result = replay_case(corpus / "cases/lc-oi-refund", agent)
    assert result.divergence is None, result.divergence
    answer = "The refund check timed out."
    assert result.terminal.to_doc() == {"status": "succeeded", "output": answer}
    trace = yaml.safe_load((corpus / "cases/lc-oi-refund/trace.yaml").read_text())
    assert [(e["tool"], e["arguments"]) for e in trace["events"] if e["type"] == "tool_call"] == [
        (name, args) for name, args, _ in truth
    ]
