"""The OpenAI Agents SDK on its default Responses-API model, exported by its own tracing.

Response spans export only a response id: no model id, no request, no answer. Such a run is
refused as incomplete, and `--allow-incomplete` (which the refusal suggests) keeps it as a
known_unknown case that validates; its tool calls, arguments, results and errors are still
what ran, and a failure_error_function that names the exception type keeps that type.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import agents
import openai
import pytest
import yaml

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load
from tests.ingest.fake_openai import Script
from tests.ingest.test_sdk_openai_agents import Collector
from tests.replaying import replay_case


def _response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1", "object": "response", "created_at": 1767225600, "status": "completed",
        "model": "gpt-4.1-mini-2025-04-14", "output": output, "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25,
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }  # fmt: skip


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
            "arguments": json.dumps(args), "status": "completed"}  # fmt: skip


ANSWER = "The refund check timed out; please try again later."


def _run(tmp_path: Path) -> tuple[Path, list[tuple[str, dict[str, Any], Any]]]:
    truth: list[tuple[str, dict[str, Any], Any]] = []

    @agents.function_tool
    def get_order(order_id: str) -> dict[str, Any]:
        """An order by id."""
        truth.append(("get_order", {"order_id": order_id}, {"eligible": True, "amount": 500}))
        return {"eligible": True, "amount": 500}

    def named_failure(ctx: Any, err: Exception) -> str:
        return f"Tool failed: {type(err).__name__}: {err}"

    @agents.function_tool(failure_error_function=named_failure)
    def check_refund(order_id: str) -> str:
        """Whether the refund went through."""
        truth.append(("check_refund", {"order_id": order_id},
                      {"type": "TimeoutError", "message": "refund_check_timeout"}))  # fmt: skip
        raise TimeoutError("refund_check_timeout")

    script = Script([
        _response([_call("call_1", "get_order", {"order_id": "A100"}),
                    _call("call_2", "check_refund", {"order_id": "A100"})]),
        _response([{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}]),
    ])  # fmt: skip
    client = openai.AsyncOpenAI(api_key="test", http_client=script.async_client())
    model = agents.OpenAIResponsesModel(model="gpt-4.1-mini", openai_client=client)
    agent = agents.Agent(
        name="refund-bot", instructions="Refunds.", model=model, tools=[get_order, check_refund]
    )
    collector = Collector()
    agents.set_trace_processors([collector])
    assert asyncio.run(agents.Runner.run(agent, "Refund A100")).final_output == ANSWER
    path = tmp_path / "responses-export.json"
    path.write_text(json.dumps({"trace": collector.traces[0], "spans": collector.spans}))
    return path, truth


def test_responses_run_holds_what_ran(tmp_path: Path) -> None:
    path, truth = _run(tmp_path)
    (run,) = load(path)
    assert calls(run.body) == truth
    first = run.body["events"][0]
    assert [(c["name"], c["arguments"]) for c in first["response"]["tool_calls"]] == [
        (name, args) for name, args, _ in truth
    ]


def test_responses_run_refused_then_kept_with_allow_incomplete(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _run(tmp_path)
    assert main(["-C", str(corpus), "add", str(path), "--id", "resp"]) == 2
    err = capsys.readouterr().err
    assert "names no model id" in err and "--allow-incomplete" in err
    assert not (corpus / "cases/resp").exists()
    assert main(["-C", str(corpus), "add", str(path), "--id", "resp", "--allow-incomplete"]) == 0
    trace = yaml.safe_load((corpus / "cases/resp/trace.yaml").read_text())
    expected = yaml.safe_load((corpus / "cases/resp/expected.yaml").read_text())
    assert expected["status"] == "known_unknown"
    assert [e.get("missing") for e in trace["events"] if e["type"] == "model_call"] == [
        ["messages", "model"],
        ["messages", "model"],
    ]
    capsys.readouterr()
    assert main(["-C", str(corpus), "validate"]) == 0, capsys.readouterr().out


def test_responses_missing_model_in_an_active_case_is_a_finding(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _run(tmp_path)
    assert main(["-C", str(corpus), "add", str(path), "--id", "resp", "--allow-incomplete"]) == 0
    expected = corpus / "cases/resp/expected.yaml"
    expected.write_text(expected.read_text().replace("status: known_unknown", "status: active"))
    capsys.readouterr()
    assert main(["-C", str(corpus), "validate"]) == 1
    out = capsys.readouterr().out
    assert "cases/resp/trace.yaml:" in out and "names no model id" in out


def _agent(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
    """The refund agent against the Runtime: the SDK's tool loop, failures as it shows them."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": case_input["user_message"]}]
    while True:
        reply = rt.model(messages)
        if not reply.tool_calls:
            return {"status": "succeeded", "output": reply.content}
        for call in reply.tool_calls:
            try:
                shown = str(rt.tool(call.name, call.arguments))
            except Exception as err:  # ToolError
                shown = f"Tool failed: {err.type}: {err.message}"  # type: ignore[attr-defined]
            messages.append({"role": "tool", "content": shown, "tool_call_id": call.id})


@pytest.mark.parametrize("mode", ["strict", "lenient"])
def test_responses_case_replays_against_the_script(tmp_path: Path, corpus: Path, mode: str) -> None:
    """The export holds no model request: strict replay compares none (a note says so) and
    still checks every tool call, its arguments and their order."""
    path, truth = _run(tmp_path)
    assert main(["-C", str(corpus), "add", str(path), "--id", "resp", "--allow-incomplete"]) == 0
    trace = yaml.safe_load((corpus / "cases/resp/trace.yaml").read_text())
    assert [e.get("missing") for e in trace["events"] if e["type"] == "model_call"] == [
        ["messages", "model"],
        ["messages", "model"],
    ]
    result = replay_case(corpus / "cases/resp", _agent, mode=mode)
    assert result.divergence is None, result.divergence
    ran = [e.to_doc() for e in result.events if e.type == "tool_call"]
    assert [(e["tool"], e["arguments"], e.get("result", e.get("error"))) for e in ran] == truth


def test_responses_case_strict_replay_still_catches_a_changed_argument(
    tmp_path: Path, corpus: Path
) -> None:
    path, _ = _run(tmp_path)
    assert main(["-C", str(corpus), "add", str(path), "--id", "resp", "--allow-incomplete"]) == 0

    def changed(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        reply = rt.model([{"role": "user", "content": case_input["user_message"]}])
        call = reply.tool_calls[0]
        rt.tool(call.name, {**call.arguments, "order_id": "O-0000"})
        return {"status": "succeeded", "output": None}

    result = replay_case(corpus / "cases/resp", changed, mode="strict")
    assert result.divergence is not None and result.divergence.kind == "ToolArguments"
