"""Native incidents shaped by a logging gateway (or by record() itself), not by hand.

Each test counts what the incident holds from its JSON directly, then checks the case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from corpus_tool import ModelResponse, ToolCall
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace
from corpus_tool.replay.engine import CaseSpec, replay
from corpus_tool.replay.requests import ALL_FIELDS
from tests.conftest import Cli
from tests.recording import record_incident


def _trace(corpus: Path, case: str) -> dict[str, Any]:
    return yaml.safe_load((corpus / "cases" / case / "trace.yaml").read_text(encoding="utf-8"))


def _strict_all(corpus: Path, case: str, agent: Any) -> Any:
    """Replay strictly, every request field compared (`replay.request_fields: all`)."""
    expected = yaml.safe_load((corpus / "cases" / case / "expected.yaml").read_text())
    spec = CaseSpec(
        Trace.from_doc(_trace(corpus, case)), Expected.from_doc(expected), "strict",
        request_fields=ALL_FIELDS,
    )  # fmt: skip
    return replay(agent, spec)


def _looping_agent(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
    """Calls the tools the model asks for, echoing the call ids it was given, until it answers."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": case_input["user_message"]}]
    while True:
        reply = rt.model(messages, model="m1", tools=[{"name": "stock"}])
        if not reply.tool_calls:
            return {"status": "succeeded", "output": reply.content}
        asked = [c.to_doc() for c in reply.tool_calls]
        messages.append({"role": "assistant", "content": None, "tool_calls": asked})
        for call in reply.tool_calls:
            result = json.dumps(rt.tool(call.name, call.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


def test_native_ids_restarting_each_turn_get_a_suffix_and_replay(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    turns = [
        ModelResponse(None, (ToolCall("call_0", "stock", {"sku": "A1"}),)),
        ModelResponse(None, (ToolCall("call_0", "stock", {"sku": "B2"}),)),
        ModelResponse("A1: 3, B2: 0"),
    ]
    incident = tmp_path / "restart.json"
    record_incident(
        _looping_agent, turns, {"stock": lambda a: {"sku": a["sku"], "n": 3}}, incident,
        trace_id="t-restart", message="stock of A1 and B2?",
    )  # fmt: skip
    raw = json.loads(incident.read_text(encoding="utf-8"))
    raw_tools = [e for e in raw["events"] if e["type"] == "tool_call"]
    assert [e["callId"] for e in raw_tools] == ["call_0", "call_0"], "the server restarts ids"

    result = cli("-C", corpus_dir, "add", incident, "--id", "restart")
    assert result.code == 0, result.err
    trace = _trace(corpus_dir, "restart")
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    asked = [c for e in trace["events"] if e["type"] == "model_call"
             for c in e["response"].get("tool_calls") or []]  # fmt: skip
    assert len(tools) == len(raw_tools)
    assert [t["call_id"] for t in tools] == ["call_0", "call_0~2"]
    assert [c["id"] for c in asked] == ["call_0", "call_0~2"]
    assert [t["arguments"] for t in tools] == [e["input"] for e in raw_tools]
    assert tools[1]["extra"]["recorded_call_id"] == "call_0"
    last_request = [e for e in trace["events"] if e["type"] == "model_call"][-1]["request"]
    assert [m.get("tool_call_id") for m in last_request["messages"] if m["role"] == "tool"] == [
        "call_0",
        "call_0~2",
    ]
    outcome = _strict_all(corpus_dir, "restart", _looping_agent)
    assert outcome.divergence is None, outcome.divergence


def _params_agent(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
    messages = [{"role": "user", "content": case_input["user_message"]}]
    reply = rt.model(messages, model="m1", presence_penalty=0.5, parallel_tool_calls=False)
    return {"status": "succeeded", "output": reply.content}


def test_native_request_params_outside_the_table_are_compared(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    incident = tmp_path / "params.json"
    record_incident(
        _params_agent, [ModelResponse("hi")], {}, incident, trace_id="t-params", message="hi"
    )
    raw_call = json.loads(incident.read_text(encoding="utf-8"))["events"][0]
    assert raw_call["presence_penalty"] == 0.5, "record() writes the parameter inline"
    assert cli("-C", corpus_dir, "add", incident, "--id", "params").code == 0
    request = _trace(corpus_dir, "params")["events"][0]["request"]
    assert request["params"] == {"presence_penalty": 0.5, "parallel_tool_calls": False}
    outcome = _strict_all(corpus_dir, "params", _params_agent)
    assert outcome.divergence is None, "the unchanged agent passes its own recording"


def _gateway(**model_call: Any) -> dict[str, Any]:
    """An incident as a logging gateway writes it: camelCase parameters, extra keys. Written
    by hand after the native format's own definition (DESIGN.md, "The native incident format":
    camelCase keys, unknown keys kept) and docs/formats.md's native row; the format is this
    project's, so there is no public producer's file to cite."""
    call = {
        "seq": 1,
        "type": "llm_request",
        "model": "m1",
        "messages": [{"role": "user", "content": "stock of A1?"}],
        "response": {
            "content": None,
            "toolCalls": [{"id": "c1", "type": "function", "name": "stock", "arguments": "{}"}],
        },
        **model_call,
    }
    return {
        "schemaVersion": "1.0",
        "traceId": "t-gateway",
        "startedAt": "2025-06-01T10:00:00Z",
        "agent": {"name": "gw", "version": "1"},
        "events": [
            call,
            {
                "seq": 2,
                "type": "tool_call",
                "tool": "stock",
                "callId": "c1",
                "input": {},
                "error": {"type": "Timeout", "message": "slow", "code": 504, "retryable": True},
            },
            {
                "seq": 3,
                "type": "final",
                "status": "failed",
                "output": None,
                "timestamp": "2025-06-01T10:00:09Z",
                "node": "planner",
            },
        ],
    }


def test_native_gateway_parameters_and_unknown_keys_are_kept(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    doc = _gateway(presencePenalty=0.2, parallelToolCalls=True, maxTokens=64)
    incident = tmp_path / "gw.json"
    incident.write_text(json.dumps(doc), encoding="utf-8")
    assert cli("-C", corpus_dir, "add", incident, "--id", "gw").code == 0
    trace = _trace(corpus_dir, "gw")
    model_call, tool_call = trace["events"]
    source = doc["events"][0]
    assert model_call["request"]["params"] == {
        "presence_penalty": source["presencePenalty"],
        "parallel_tool_calls": source["parallelToolCalls"],
        "max_tokens": source["maxTokens"],
    }
    error = doc["events"][1]["error"]
    assert tool_call["error"] == {"type": error["type"], "message": error["message"]}
    assert tool_call["extra"]["error"] == {"code": error["code"], "retryable": error["retryable"]}
    requested = source["response"]["toolCalls"][0]
    assert model_call["extra"]["response"]["toolCalls"] == [{"type": requested["type"]}]
    final = doc["events"][2]
    assert trace["extra"]["final"] == {"timestamp": final["timestamp"], "node": final["node"]}


def test_native_null_tools_is_refused_naming_the_incident_field(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    incident = tmp_path / "nulltools.json"
    incident.write_text(json.dumps(_gateway(tools=None)), encoding="utf-8")
    result = cli("-C", corpus_dir, "add", incident)
    assert result.code == 2
    assert "events[0].tools" in result.err and "$." not in result.err, result.err
    assert str(incident) in result.err and result.err.count("\n") == 1


def test_native_wire_shaped_assistant_calls_are_read_as_replay_reads_them_and_odd_ones_kept(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    wire = {"id": "c0", "type": "function", "function": {"name": "stock", "arguments": '{"a":1}'}}
    not_json = {"id": "c1", "type": "function", "function": {"name": "stock", "arguments": "a=1"}}
    custom = {"id": "c2", "type": "custom", "custom": {"name": "grep", "input": "x"}}
    said = {"role": "assistant", "content": None, "refusal": None, "annotations": [],
            "tool_calls": [wire, not_json, custom]}  # fmt: skip
    refused = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
    messages = [{"role": "user", "content": "stock of A1?"}, said, refused]
    incident = tmp_path / "wire.json"
    incident.write_text(json.dumps(_gateway(messages=messages)), encoding="utf-8")
    assert cli("-C", corpus_dir, "add", incident, "--id", "wire").code == 0
    kept = _trace(corpus_dir, "wire")["events"][0]["request"]["messages"]
    assert kept[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c0", "name": "stock", "arguments": {"a": 1}}, not_json, custom],
    }
    assert kept[2] == refused, "a refusal the model gave is no SDK null"
    assert kept[0] == messages[0]
