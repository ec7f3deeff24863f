"""SWE-agent 1.x: the last step (final answer and `submit`) that only `trajectory` holds.

SWE-agent 1.x writes the step that ends the run into `trajectory` without adding it to
`history`. The file here is the real 1.x sample (shared/samples/swe_agent_1x) with that last
step removed from its `history`, which is the shape such a run leaves; what the step holds is
read from the file, not through the importer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ingest.conftest import load

SAMPLE = "swe_agent_1x/marshmallow-code__marshmallow-1867.function_calling_replace.traj"


@pytest.fixture
def traj(samples: Path) -> dict[str, Any]:
    return json.loads((samples / SAMPLE).read_text(encoding="utf-8"))


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "run.traj"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _without_last_step(doc: dict[str, Any]) -> dict[str, Any]:
    history = doc["history"]
    last = max(i for i, m in enumerate(history) if m["role"] == "assistant")
    assert history[last]["action"] == doc["trajectory"][-1]["action"]
    return {**doc, "history": history[:last]}


def test_swe_agent_last_step_only_in_trajectory_is_kept(
    traj: dict[str, Any], tmp_path: Path
) -> None:
    doc = _without_last_step(traj)
    (run,) = load(_write(tmp_path, doc))
    events = run.body["events"]
    models = [e for e in events if e["type"] == "model_call"]
    assert len(models) == len(doc["trajectory"]), "one model call per step"
    step = doc["trajectory"][-1]
    assert models[-1]["response"]["content"] == step["response"]
    last = events[-1]
    assert (last["type"], last["tool"], last["result"]) == (
        "tool_call",
        step["action"].split()[0],
        step["observation"],
    )
    assert "not in history" in last["extra"]["source"]
    assert run.body["terminal"] == {"status": "submitted", "output": doc["info"]["submission"]}


def test_swe_agent_history_and_trajectory_disagreeing_is_said(
    traj: dict[str, Any], tmp_path: Path
) -> None:
    (plain,) = load(_write(tmp_path, traj))
    assert "history_vs_trajectory" not in (plain.body.get("extra") or {})
    doc = json.loads(json.dumps(traj))
    answers = [m for m in doc["history"] if m["role"] == "assistant" and not m.get("is_demo")]
    answers[2]["action"] = "ls /elsewhere"
    (run,) = load(_write(tmp_path, doc))
    assert run.body["extra"]["history_vs_trajectory"] == [
        {"step": 3, "history": "ls /elsewhere", "trajectory": doc["trajectory"][2]["action"]}
    ]
