"""mini-swe-agent trajectories: what the file's messages hold is what the case holds.

The suite's fixtures are written here by hand in the shape mini-swe-agent writes
(`save_traj`: `{info, messages, trajectory_format}`), as in SWE-agent/mini-swe-agent
tests/test_data/github_issue.traj.json (commit 78fb1f6efc6c6f444adeb9ebb349b5bb125470e4, the
text form's messages) and the shared samples (mini-swe-agent 1.15 text form, 2.x tool calls
with `extra.timestamp` and a closing `role: exit` message). Expected values are counted from
the messages by this file's own code, never by the importer.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Cli
from tests.ingest.conftest import calls, load, problems

MODEL = "openai/gpt-4.1-mini"
PATCH = "diff --git a/calc.py b/calc.py\n-    return a/b\n+    return a / b if b else 0.0\n"
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"
COMMANDS = ["cat calc.py", "sed -i 's/a\\/b/a \\/ b if b else 0.0/' calc.py", SUBMIT]
SHOWN = [
    "<returncode>0</returncode>\n<output>\ndef div(a, b):\n    return a/b\n</output>",
    "<returncode>0</returncode>\n<output>\n</output>",
    PATCH,
]
TASK = "<pr_description>\nDivision by zero crashes calc.div\n</pr_description>"


def _info(status: str, version: str) -> dict[str, Any]:
    return {
        "exit_status": status,
        "submission": PATCH if status == "Submitted" else "",
        "model_stats": {"instance_cost": 0.01, "api_calls": 3},
        "mini_version": version,
        "config": {"model": {"model_name": MODEL}, "agent": {"step_limit": 250}},
    }


def text_traj() -> dict[str, Any]:
    """mini-swe-agent 1.x: commands in ```bash blocks, observations as user messages."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You can interact with a computer shell."},
        {"role": "user", "content": TASK},
        {"role": "assistant", "content": "THOUGHT: no command here, just thinking."},
        {"role": "user", "content": "Provide EXACTLY ONE bash block."},
    ]
    for n, (command, shown) in enumerate(zip(COMMANDS, SHOWN, strict=True)):
        answer = f"THOUGHT: step {n}.\n\n```bash\n{command}\n```"
        created = 1763509960 + 10 * n
        response = {"model": MODEL, "created": created, "usage": {"prompt_tokens": 100 + n}}
        messages.append({"role": "assistant", "content": answer, "extra": {"response": response}})
        messages.append({"role": "user", "content": shown})
    return {
        "info": _info("Submitted", "1.15.0"),
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": "calc__calc-1",
    }


def tool_traj(status: str = "Submitted") -> dict[str, Any]:
    """mini-swe-agent 2.x: `bash` tool calls, `role: tool` observations, a closing exit."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You can interact with a computer shell."},
        {"role": "user", "content": TASK},
    ]
    for n, (command, shown) in enumerate(zip(COMMANDS, SHOWN, strict=True)):
        call_id = f"call_{n}"
        function = {"name": "bash", "arguments": json.dumps({"command": command})}
        asked = {"index": 0, "function": function, "id": call_id, "type": "function"}
        when = 1776075645.5 + 10 * n
        extra = {"actions": [{"command": command, "tool_call_id": call_id}], "timestamp": when}
        messages.append(
            {"content": f"step {n}", "role": "assistant", "tool_calls": [asked], "extra": extra}
        )
        if command == SUBMIT:
            break
        result_extra = {"raw_output": shown, "returncode": 0, "timestamp": when + 1}
        messages.append(
            {"content": shown, "extra": result_extra, "tool_call_id": call_id, "role": "tool"}
        )
    exit_extra = {"exit_status": status, "submission": PATCH}
    messages.append({"role": "exit", "content": PATCH, "extra": exit_extra})
    return {
        "info": _info(status, "2.3.0"),
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
    }


def _write(tmp_path: Path, traj: dict[str, Any]) -> Path:
    path = tmp_path / "calc__calc-1.traj.json"
    path.write_text(json.dumps(traj, indent=2), encoding="utf-8")
    return path


def expected_calls(traj: dict[str, Any]) -> list[tuple[str, dict[str, Any], Any]]:
    """Every command the file says ran and what it showed, read from the messages alone."""
    messages = traj["messages"]
    out: list[tuple[str, dict[str, Any], Any]] = []
    for i, msg in enumerate(messages):
        if msg["role"] != "assistant":
            continue
        if msg.get("tool_calls"):
            for call in msg["tool_calls"]:
                answer = next(
                    (m for m in messages if m.get("tool_call_id") == call["id"]),
                    next(m for m in messages if m["role"] == "exit"),
                )
                out.append(("bash", json.loads(call["function"]["arguments"]), answer["content"]))
            continue
        blocks = re.findall(r"```bash\s*\n(.*?)\n```", msg["content"], re.S)
        if len(blocks) == 1:
            out.append(("bash", {"command": blocks[0].strip()}, messages[i + 1]["content"]))
    return out


@pytest.mark.parametrize("make", [text_traj, tool_traj], ids=["text", "tool-calls"])
def test_mini_swe_agent_case_holds_every_command_and_how_it_ended(
    tmp_path: Path, make: Any
) -> None:
    traj = make()
    (run,) = load(_write(tmp_path, traj))
    assert run.format == "mini-swe-agent"
    assert calls(run.body) == expected_calls(traj)
    answers = [m for m in traj["messages"] if m["role"] == "assistant"]
    models = [e for e in run.body["events"] if e["type"] == "model_call"]
    assert [e["response"]["content"] for e in models] == [m["content"] for m in answers]
    assert run.body["recorded"]["models"] == [MODEL]
    assert run.body["recorded"]["agent"]["version"] == traj["info"]["mini_version"]
    assert run.body["terminal"] == {"status": "submitted", "output": PATCH}
    assert run.body["input"]["user_message"] == TASK
    assert problems(run.body) == []


def test_mini_swe_agent_exception_exit_is_a_failed_run(tmp_path: Path) -> None:
    (run,) = load(_write(tmp_path, tool_traj("InternalServerError")))
    assert run.body["terminal"]["status"] == "failed"
    assert run.body["extra"]["info"]["exit_status"] == "InternalServerError"


def test_mini_swe_agent_add_from_the_cli(tmp_path: Path, corpus_dir: Path, cli: Cli) -> None:
    path = _write(tmp_path, tool_traj())
    result = cli("-C", corpus_dir, "add", path, "--id", "mini")
    assert result.code == 0, result.err
    trace = yaml.safe_load((corpus_dir / "cases/mini/trace.yaml").read_text(encoding="utf-8"))
    assert trace["source"]["format"] == "mini-swe-agent"
    assert len([e for e in trace["events"] if e["type"] == "tool_call"]) == len(COMMANDS)
    assert cli("-C", corpus_dir, "validate").code == 0


def test_mini_swe_agent_samples_hold_what_the_files_hold(samples: Path) -> None:
    files = sorted((samples / "mini_swe_agent").glob("*.traj.json"))
    if not files:
        pytest.skip("no mini-swe-agent samples")
    for path in files:
        traj = json.loads(path.read_text(encoding="utf-8"))
        (run,) = load(path)
        assert run.format == "mini-swe-agent", path.name
        assert calls(run.body) == expected_calls(traj), path.name
        answers = [m for m in traj["messages"] if m["role"] == "assistant"]
        models = [e for e in run.body["events"] if e["type"] == "model_call"]
        assert len(models) == len(answers), path.name
        submitted = traj["info"]["exit_status"] == "Submitted"
        assert (run.body["terminal"]["status"] == "submitted") == submitted, path.name
        assert problems(run.body) == [], path.name


def test_mini_swe_agent_text_mode_2x_reads_the_recorded_action(tmp_path: Path) -> None:
    """2.x's text mode records the command it parsed (`extra.actions`), whatever the block's
    marker; the observation is the next user message."""
    traj = text_traj()
    for msg in traj["messages"]:
        blocks = re.findall(r"```bash\s*\n(.*?)\n```", str(msg["content"]), re.S)
        if msg["role"] == "assistant" and len(blocks) == 1:
            msg["content"] = msg["content"].replace("```bash", "```mswea_bash_command")
            msg["extra"]["actions"] = [{"command": blocks[0]}]
    traj["info"]["mini_version"] = "2.3.0"
    (run,) = load(_write(tmp_path, traj))
    assert calls(run.body) == expected_calls(text_traj())
