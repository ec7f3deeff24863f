"""SWE-agent trajectories: a scripted run written as SWE-agent writes it, imported and replayed.

Ground truth is the script (`swe_traj.STEPS`): every command, its arguments and what the
shell printed. A `.traj` records no time, so the case is added with --allow-incomplete as a
known_unknown case, which validates and replays strictly against a SWE-agent-like agent.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool import Runtime
from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems
from tests.ingest.swe_traj import MODEL, PATCH, STEPS, SYSTEM, observation_message, write_traj
from tests.replaying import replay_case


def _thought_action_agent(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """SWE-agent's loop with a thought-action parser: the last fenced block is the command."""
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": case_input["user_message"]},
    ]
    while True:
        reply = rt.model(messages, model=MODEL)
        command = re.findall(r"```\n(.*?)\n```", reply.content or "", re.S)[-1]
        shown = rt.tool(command.split()[0], {"command": command})
        if command == "submit":
            return {"status": "submitted", "output": shown}
        messages.append({"role": "assistant", "content": reply.content})
        messages.append({"role": "user", "content": shown})


def _function_calling_agent(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """SWE-agent's loop with function calling: one tool call per step, observations as tool
    messages; the run ends once submit has run."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": case_input["user_message"]},
    ]
    while True:
        reply = rt.model(messages, model=MODEL)
        (call,) = reply.tool_calls
        shown = rt.tool(call.name, call.arguments)
        asked = {"id": call.id, "name": call.name, "arguments": call.arguments}
        messages.append({"role": "assistant", "content": reply.content, "tool_calls": [asked]})
        messages.append({"role": "tool", "content": shown, "tool_call_id": call.id})
        if call.name == "submit":
            return {"status": "submitted", "output": shown.removeprefix("Observation: ")}


Agent = Callable[[dict[str, Any], Runtime], dict[str, Any]]
FORMS: dict[str, tuple[bool, Agent]] = {
    "thought-action": (False, _thought_action_agent),
    "function-calling": (True, _function_calling_agent),
}


def _expected_calls(function_calling: bool) -> list[tuple[str, dict[str, Any], Any]]:
    """What the script ran, as a case must hold it (the submit observation of a thought-action
    run was never templated: the run ended on it)."""
    if function_calling:
        return [(s.name, s.arguments, observation_message(s)) for s in STEPS]
    shown = [observation_message(s) for s in STEPS[:-1]] + [STEPS[-1].observation]
    return [
        (s.command.split()[0], {"command": s.command}, text)
        for s, text in zip(STEPS, shown, strict=True)
    ]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_swe_agent_traj_holds_what_the_script_ran(tmp_path: Path, form: str) -> None:
    function_calling, _ = FORMS[form]
    (run,) = load(write_traj(tmp_path / "demo.traj", function_calling))
    assert run.format == "swe-agent"
    assert calls(run.body) == _expected_calls(function_calling)
    assert run.body["recorded"]["models"] == [MODEL]
    assert run.body["recorded"]["agent"] == {"name": "swe-agent", "version": "1.0.1"}
    assert run.body["terminal"] == {"status": "submitted", "output": PATCH}
    assert problems(run.body) == ["start time is missing"]  # a .traj holds no time


@pytest.mark.parametrize("form", sorted(FORMS))
def test_swe_agent_case_validates_and_replays_strictly(
    tmp_path: Path, corpus: Path, form: str
) -> None:
    function_calling, agent = FORMS[form]
    path = write_traj(tmp_path / "demo.traj", function_calling)
    assert main(["-C", str(corpus), "add", str(path), "--id", "swe", "--allow-incomplete"]) == 0
    expected = yaml.safe_load((corpus / "cases/swe/expected.yaml").read_text(encoding="utf-8"))
    assert expected["status"] == "known_unknown"
    assert expected["incomplete"] == ["start time is missing"]
    assert main(["-C", str(corpus), "validate"]) == 0
    result = replay_case(corpus / "cases/swe", agent)
    assert result.divergence is None, result.divergence
    assert result.terminal.to_doc() == {"status": "submitted", "output": PATCH}


def test_swe_agent_without_allow_incomplete_names_the_missing_time(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_traj(tmp_path / "demo.traj", function_calling=True)
    assert main(["-C", str(corpus), "add", str(path)]) == 2
    err = capsys.readouterr().err
    assert "start time is missing" in err and "--allow-incomplete" in err
    assert not [p for p in (corpus / "cases").iterdir() if p.is_dir()]


def test_swe_agent_replay_of_another_command_diverges(tmp_path: Path, corpus: Path) -> None:
    path = write_traj(tmp_path / "demo.traj", function_calling=False)
    assert main(["-C", str(corpus), "add", str(path), "--id", "swe", "--allow-incomplete"]) == 0

    def careless(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": case_input["user_message"]},
        ]
        rt.model(messages, model=MODEL)
        rt.tool("rm", {"command": "rm -rf /repo"})
        return {"status": "submitted", "output": None}

    result = replay_case(corpus / "cases/swe", careless)
    assert result.divergence is not None
    assert result.divergence.kind == "ToolName"
