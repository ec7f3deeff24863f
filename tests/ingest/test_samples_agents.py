"""The reference samples of SWE-agent, OpenHands, MCP and AgentOps: each imports with the facts
the file itself holds, or is refused for the gap the docs name. Expected values are read
from the sample files here, never from the importer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems


def _raw(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_swe_agent_function_calling_sample_calls(samples: Path) -> None:
    path = samples / "swe_agent/function_calling_simple.traj"
    history = _raw(path)["history"]
    asked = [c for m in history if m["role"] == "assistant" for c in m["tool_calls"]]
    shown = [m["content"] for m in history if m["role"] == "tool"]
    (run,) = load(path)
    assert calls(run.body) == [
        (c["function"]["name"], json.loads(c["function"]["arguments"]), text)
        for c, text in zip(asked, shown, strict=True)
    ]
    # no replay_config: no model id; no .traj holds a time
    assert "start time is missing" in problems(run.body)
    assert any("names no model id" in p for p in problems(run.body))


def test_swe_agent_thought_action_sample_runs_parsed_commands(samples: Path) -> None:
    path = samples / "swe_agent/swe-agent__test-repo-i1.traj"
    doc = _raw(path)
    (run,) = load(path)
    commands = [step["action"].strip() for step in doc["trajectory"]]
    assert [(t, a) for t, a, _ in calls(run.body)] == [
        (c.split()[0], {"command": c}) for c in commands
    ]
    assert calls(run.body)[-1][2] == doc["trajectory"][-1]["observation"]  # submit: the diff
    assert run.body["terminal"] == {"status": "submitted", "output": doc["info"]["submission"]}


def test_swe_agent_sample_is_kept_with_allow_incomplete(samples: Path, corpus: Path) -> None:
    path = samples / "swe_agent/marshmallow-code__marshmallow-1867.function_calling.traj"
    (run,) = load(path)
    assert run.body["recorded"]["models"] == [_raw(path)["replay_config"]["agent"]["model"]["name"]]
    assert problems(run.body) == ["start time is missing"]  # reused call ids made unique
    assert main(["-C", str(corpus), "add", str(path), "--id", "m", "--allow-incomplete"]) == 0
    expected = yaml.safe_load((corpus / "cases/m/expected.yaml").read_text(encoding="utf-8"))
    assert expected["status"] == "known_unknown"
    assert main(["-C", str(corpus), "validate"]) == 0


def test_openhands_sample_actions_and_observations(samples: Path) -> None:
    path = samples / "openhands/wrong_initial_state.json"
    stream = _raw(path)
    by_cause = {e["cause"]: e for e in stream if "cause" in e}
    actions = [e for e in stream if e.get("tool_call_metadata") and "action" in e]
    (run,) = load(path)
    expected = []
    for action in actions:
        meta = action["tool_call_metadata"]
        (asked,) = meta["model_response"]["choices"][0]["message"]["tool_calls"]
        seen = by_cause.get(action["id"])
        expected.append(
            (
                meta["function_name"],
                json.loads(asked["function"]["arguments"]),
                seen["content"] if seen else None,  # finish: no observation
            )
        )
    assert calls(run.body) == expected
    assert run.body["terminal"]["status"] == "succeeded"
    assert problems(run.body) == []


def test_openhands_sample_conversation_turns(samples: Path) -> None:
    path = samples / "openhands/basic_interactions.json"
    users = [e["args"]["content"] for e in _raw(path) if e["source"] == "user"]
    (run,) = load(path)
    assert run.body["input"]["user_message"] == users[0]
    assert run.body["input"]["context"] == {"user_turns": users[1:]}
    answers = [e for e in run.body["events"] if e["type"] == "model_call"]
    assert len(answers) == 3  # two plain answers and the finish call
    assert {e["model"] for e in answers} == {"gpt-4o-2024-08-06"}
    assert problems(run.body) == []


def test_mcp_sample_request_and_response_make_one_call(samples: Path, tmp_path: Path) -> None:
    request = _raw(samples / "mcp/2026-07-28_CallToolRequest_call-tool-request.json")
    response = _raw(
        samples / "mcp/2026-07-28_CallToolResultResponse_call-tool-result-response.json"
    )
    log = tmp_path / "exchange.jsonl"
    log.write_text(f"{json.dumps(request)}\n{json.dumps(response)}\n", encoding="utf-8")
    (run,) = load(log)
    text = response["result"]["content"][0]["text"]
    assert calls(run.body) == [("get_weather", request["params"]["arguments"], text)]
    client = request["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]
    assert run.body["recorded"]["agent"] == {"name": client["name"], "version": client["version"]}


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("2026-07-28_CallToolRequest_call-tool-request.json", "has neither result nor error"),
        ("2026-07-28_CallToolResultResponse_call-tool-result-response.json",
         "MCP response(s) call-tool-example without the `tools/call` request"),
        ("2026-07-28_CallToolResult_invalid-tool-input-error.json",
         "an MCP CallToolResult without its JSON-RPC envelope"),
        ("2026-07-28_InvalidParamsError_unknown-tool.json",
         "a JSON-RPC error object without its JSON-RPC envelope"),
    ],
)  # fmt: skip
def test_mcp_sample_pieces_are_refused_with_the_reason(
    samples: Path, corpus: Path, capsys: pytest.CaptureFixture[str], name: str, reason: str
) -> None:
    assert main(["-C", str(corpus), "add", str(samples / "mcp" / name)]) == 2
    assert reason in capsys.readouterr().err


def test_agentops_sample_two_agents_two_model_calls(samples: Path, corpus: Path) -> None:
    path = samples / "agentops/ibm_acp_tutorial_agent_ops_traces.md.json"
    llm_spans = [s for s in _raw(path)["spans"] if s["span_name"].endswith(".llm")]
    (run,) = load(path)
    models = [e for e in run.body["events"] if e["type"] == "model_call"]
    assert [m["response"]["content"] for m in models] == [
        s["span_attributes"]["gen_ai"]["completion"][0]["content"] for s in llm_spans
    ]
    assert [m["request"]["messages"] for m in models] == [
        s["span_attributes"]["gen_ai"]["prompt"] for s in llm_spans
    ]
    assert [m["node"] for m in models] == ["Website Researcher", "Songwriter"]
    assert problems(run.body) == []
    assert main(["-C", str(corpus), "add", str(path), "--id", "crew"]) == 0
    assert main(["-C", str(corpus), "validate"]) == 0
