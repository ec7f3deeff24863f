"""OpenHands event streams: a scripted run written as OpenHands serializes it, imported and
replayed strictly. Ground truth is the script (`openhands_stream.STEPS`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems
from tests.ingest.openhands_stream import (
    GREETING,
    MODEL,
    OUTPUT,
    STEPS,
    SYSTEM,
    TASK,
    TOOLS,
    write_stream,
)
from tests.ingest.replaying import codeact_agent
from tests.replaying import replay_case


def _expected_calls() -> list[tuple[str, dict[str, Any], Any]]:
    out: list[tuple[str, dict[str, Any], Any]] = []
    for step in STEPS:
        if step.observation == "error":
            outcome: Any = {"type": "ToolError", "message": step.content}
        else:
            outcome = step.content if step.observation else None  # finish: no observation
        out.append((step.name, step.arguments, outcome))
    return out


@pytest.mark.parametrize("greeting", [False, True])
def test_openhands_stream_holds_what_the_script_ran(tmp_path: Path, greeting: bool) -> None:
    (run,) = load(write_stream(tmp_path / "stream.json", greeting))
    body = run.body
    assert run.format == "openhands"
    assert calls(body) == _expected_calls()
    assert body["recorded"]["models"] == [MODEL]
    assert body["recorded"]["agent"] == {"name": "CodeActAgent", "version": "0.39.1"}
    assert body["recorded"]["started_at"] == "2025-03-04T10:00:01.500000"
    assert body["input"]["user_message"] == (GREETING[0] if greeting else TASK)
    assert body["input"]["context"] == ({"user_turns": [TASK]} if greeting else {})
    assert body["terminal"] == {"status": "succeeded", "output": OUTPUT}
    models = [e for e in body["events"] if e["type"] == "model_call"]
    assert models[0]["request"]["tools"] == TOOLS
    assert models[0]["request"]["messages"][0] == {"role": "system", "content": SYSTEM}
    assert problems(body) == []


@pytest.mark.parametrize("greeting", [False, True])
def test_openhands_case_validates_and_replays_strictly(
    tmp_path: Path, corpus: Path, greeting: bool
) -> None:
    path = write_stream(tmp_path / "stream.json", greeting)
    assert main(["-C", str(corpus), "add", str(path), "--id", "oh"]) == 0
    assert main(["-C", str(corpus), "validate"]) == 0
    result = replay_case(corpus / "cases/oh", codeact_agent(MODEL, SYSTEM, TOOLS))
    assert result.divergence is None, result.divergence
    assert result.terminal.to_doc() == {"status": "succeeded", "output": OUTPUT}


def test_openhands_action_without_observation_is_refused(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_stream(tmp_path / "stream.json")
    events = json.loads(path.read_text(encoding="utf-8"))
    run_action = next(e for e in events if e.get("action") == "run")
    kept = [e for e in events if e.get("cause") != run_action["id"]]  # the collector lost it
    path.write_text(json.dumps(kept), encoding="utf-8")
    assert main(["-C", str(corpus), "add", str(path)]) == 2
    err = capsys.readouterr().err
    assert "tool_call execute_bash (seq 4) has neither result nor error" in err
