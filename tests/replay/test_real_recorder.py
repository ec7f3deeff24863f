"""A corpus recorded the way a third-party recorder writes incidents, replayed as a user would.

The incidents in `parcel/incidents/` are written by hand in the native format exactly as
DESIGN.md's example shows it: `temperature: 0.0` logged on every `llm_request` (a provider
default the agent never passed) and no `tools` (most exports omit them). The agent,
`parcel/parcel_agent.py`, calls `rt.model(messages, tools=TOOLS)`. Each `run_*` variant of it is
one change; what each variant does is the ground truth the expectations below are written from.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, TEST_KEY, Cli, Result

PARCEL = Path(__file__).parent / "parcel"
CASE = "parcel-reroute-ok"


def corpus(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`corpus ARGS...` in a subprocess, as a user runs it."""
    env = {**os.environ, "CORPUS_REDACTION_KEY": TEST_KEY, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "corpus_tool", *map(str, args)]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`corpus init`, the agent's module, `corpus add` of each incident, and a reviewer's edit."""
    root = tmp_path_factory.mktemp("parcel") / "corpus"
    assert corpus("init", root, cwd=root.parent).returncode == 0
    shutil.copy(PARCEL / "parcel_agent.py", root)
    _entrypoint(root, "run")
    for incident in sorted((PARCEL / "incidents").glob("*.json")):
        done = corpus("add", incident, "--id", incident.stem, cwd=root)
        assert done.returncode == 0, done.stderr
    # the reviewer pins the address and the answer the fix must keep
    path = root / "cases" / CASE / "expected.yaml"
    expected = yaml.safe_load(path.read_text(encoding="utf-8"))
    args = [{"tool": "reroute_parcel", "match": {"address": "12 Elm St"}}]
    expected["expect"]["tools"]["args"] = args
    expected["expect"]["output"] = {"contains": ["12 Elm St"]}
    path.write_text(yaml.safe_dump(expected, sort_keys=False), encoding="utf-8")
    return root


@pytest.fixture()
def parcels(recorded: Path, tmp_path: Path) -> Path:
    """A private copy of the recorded corpus (tests point its entrypoint at a variant)."""
    return Path(shutil.copytree(recorded, tmp_path / "corpus"))


def _entrypoint(root: Path, name: str) -> None:
    config = root / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if "entrypoint:" not in ln]
    at = lines.index("agent:") + 1
    lines.insert(at, f"  entrypoint: parcel_agent:{name}")
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _case(cli: Cli, root: Path, *args: str) -> tuple[Result, dict[str, Any]]:
    """`corpus replay CASE --format json` (plus args) through `main()`: the run, the result."""
    done = cli("-C", root, "replay", CASE, "--format", "json", *args)
    (result,) = json.loads(done.out)["cases"]
    return done, result


def _check(result: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in result["checks"] if c["name"] == name)
    return found


def test_unchanged_agent_is_green_strictly_without_ignored_fields(cli: Cli, parcels: Path) -> None:
    config = yaml.safe_load((parcels / "corpus.yaml").read_text(encoding="utf-8"))
    assert "ignore_request_fields" not in (config.get("replay") or {})
    incident = json.loads((PARCEL / "incidents" / f"{CASE}.json").read_text(encoding="utf-8"))
    requests = [e for e in incident["events"] if e["type"] == "llm_request"]
    assert all(e["temperature"] == 0.0 and "tools" not in e for e in requests)

    done = corpus("check", cwd=parcels)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS  parcel-reroute-ok" in done.stdout and "PASS  parcel-status" in done.stdout
    assert "strict" in done.stdout
    assert "2 case(s) hold model request fields only one side carries" in done.stdout


def test_one_sided_request_fields_are_notes_not_silence(cli: Cli, parcels: Path) -> None:
    verbose = cli("-C", parcels, "check", "-v")
    assert verbose.code == 0
    assert (
        "note: request field temperature: the recording carries it (0.0), the agent does not "
        "send it (steps 1, 4, 6, 8)" in verbose.out
    )
    assert "note: request field tools: the agent sends it, the recording holds none" in (
        verbose.out
    )
    done, result = _case(cli, parcels)
    assert done.code == 0
    assert [(n["path"], n["carried_by"], n["steps"]) for n in result["notes"]] == [
        ("temperature", "recording", [1, 4, 6, 8]),
        ("tools", "agent", [1, 4, 6, 8]),
    ]


def test_changed_tool_argument_is_tool_arguments_and_args_names_the_attempt(
    cli: Cli, parcels: Path
) -> None:
    _entrypoint(parcels, "run_other_address")
    done, result = _case(cli, parcels)
    assert done.code == 1
    divergence = result["divergence"]
    assert (divergence["kind"], divergence["step"], divergence["stopped"]) == (
        "ToolArguments",
        5,
        True,
    )
    assert 'address "12 ELM ST" (recorded "12 Elm St")' in divergence["message"]
    # the agent did call reroute_parcel, with the other address: that call is graded
    args = _check(result, "tools.args")
    assert args["outcome"] == "failed"
    assert "closest is seq 5" in args["message"] and '"12 ELM ST"' in args["message"]
    assert result["failed_checks"] == ["replay.divergence", "tools.args"]
    assert set(result["not_reached"]) == {"tools.required", "terminal.status", "output.contains"}
    text = cli("-C", parcels, "replay", CASE).out
    assert '+tool_call reroute_parcel("address": "12 ELM ST", "parcel_id": "P-100") ' in text


def test_extra_repeated_call_is_tool_call_count(cli: Cli, parcels: Path) -> None:
    _entrypoint(parcels, "run_lookup_twice")
    done, result = _case(cli, parcels)
    assert done.code == 1
    divergence = result["divergence"]
    assert (divergence["kind"], divergence["step"]) == ("ToolCallCount", 3)
    assert divergence["message"].startswith(
        "a second call of lookup_parcel (a repeat of seq 2, same arguments); the recording has one"
    )
    # two lookups is more than the one max_calls allows: what the agent did, not the cut
    assert result["failed_checks"] == ["replay.divergence", "tools.max_calls"]


def test_skipped_call_is_unused_recording(cli: Cli, parcels: Path) -> None:
    _entrypoint(parcels, "run_no_notify")
    done, result = _case(cli, parcels)
    assert done.code == 1
    divergence = result["divergence"]
    assert (divergence["kind"], divergence["step"]) == ("UnusedRecording", 7)
    assert "the recording calls notify_customer here (seq 7)" in divergence["message"]
    assert result["failed_checks"] == ["replay.divergence"]
    assert "tools.required" in result["not_reached"]


def test_other_terminal_status_is_terminal_state_of_a_finished_run(cli: Cli, parcels: Path) -> None:
    _entrypoint(parcels, "run_needs_human")
    done, result = _case(cli, parcels)
    assert done.code == 1
    divergence = result["divergence"]
    assert (divergence["kind"], divergence["stopped"]) == ("TerminalState", False)
    assert (
        "finished with status needs_human; the recording ended succeeded" in (divergence["message"])
    )
    assert result["failed_checks"] == ["replay.divergence", "terminal.status"]
    assert result["not_reached"] == []
    text = cli("-C", parcels, "replay", CASE).out
    assert "TerminalState at step 9, failed: terminal.status" in text
    assert "stopped" not in text, "the run finished; nothing stopped it"


def test_reordered_calls_fail_strict_and_pass_lenient(cli: Cli, parcels: Path) -> None:
    _entrypoint(parcels, "run_reordered")
    done, result = _case(cli, parcels)
    assert done.code == 1
    assert (result["divergence"]["kind"], result["divergence"]["step"]) == ("ToolName", 2)
    assert "a changed order: lenient mode tolerates it" in result["divergence"]["message"]
    lenient = corpus("replay", "--mode", "lenient", cwd=parcels)
    assert lenient.returncode == 0, lenient.stdout
    assert "2 case(s): 2 passed" in lenient.stdout


def test_changed_system_prompt_is_model_request_naming_field_and_fix(
    cli: Cli, parcels: Path
) -> None:
    _entrypoint(parcels, "run_new_prompt")
    done, result = _case(cli, parcels)
    assert done.code == 1
    divergence = result["divergence"]
    assert (divergence["kind"], divergence["step"]) == ("ModelRequest", 1)
    assert "in messages[0].content (the system prompt)" in divergence["message"]
    assert divergence["message"].endswith(
        "if the prompt changed on purpose, re-record the case (`corpus add --force` a new "
        "incident), or replay it with --mode lenient"
    )
    assert [d["path"] for d in divergence["diff"]] == ["$.request.messages[0].content"]
    assert divergence["diff"][0]["actual"].endswith("Never reroute a delivered parcel.")
    # it never got to call a tool: nothing but the divergence is held against it
    assert result["failed_checks"] == ["replay.divergence"]


def _all_fields(root: Path, where: str) -> None:
    if where == "corpus.yaml":
        path = root / "corpus.yaml"
        text = path.read_text(encoding="utf-8").replace(
            "replay:\n  mode: strict", "replay:\n  mode: strict\n  request_fields: all"
        )
        assert "request_fields: all" in text
        path.write_text(text, encoding="utf-8")
        return
    path = root / "cases" / CASE / "expected.yaml"
    expected = yaml.safe_load(path.read_text(encoding="utf-8"))
    expected["replay"]["request_fields"] = "all"
    path.write_text(yaml.safe_dump(expected, sort_keys=False), encoding="utf-8")


@pytest.mark.parametrize("where", ["corpus.yaml", "expected.yaml"])
def test_request_fields_all_fails_on_the_unsent_temperature(
    cli: Cli, parcels: Path, where: str
) -> None:
    _all_fields(parcels, where)
    assert cli("-C", parcels, "validate").code == 0
    done, result = _case(cli, parcels)
    assert done.code == 1
    divergence = result["divergence"]
    assert (divergence["kind"], divergence["step"]) == ("ModelRequest", 1)
    assert {"path": "$.request.temperature", "expected": 0.0} in divergence["diff"]
    assert "in temperature, tools;" in divergence["message"]
    assert "`ignore_request_fields: [temperature, tools]`" in divergence["message"]
    assert result["notes"] == [], "every field counts: nothing is left to note"
    text = cli("-C", parcels, "replay", CASE).out
    assert "$.request.temperature: recorded 0.0, replay absent" in text
