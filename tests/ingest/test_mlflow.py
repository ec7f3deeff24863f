"""MLflow traces (`mlflow.get_trace(...).to_json()`), written by the real `mlflow` package.

`tests/ingest/mlflow_trace.py` traces a scripted OpenAI-compatible tool loop with MLflow
(`mlflow-tracing`); the test then compares the case with what the trace JSON holds, counted
here from the JSON itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.ingest.conftest import REPO, added_trace

pytest.importorskip("mlflow", reason="needs mlflow-tracing (or mlflow) to write the trace")


@pytest.fixture(scope="module")
def mlflow_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mlflow") / "trace.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run(
        [sys.executable, "-m", "tests.ingest.mlflow_trace", str(out)],
        cwd=REPO, env=env, check=True, timeout=120, capture_output=True,
    )  # fmt: skip
    return out


def _spans(trace: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [
        s for s in trace["data"]["spans"] if json.loads(s["attributes"]["mlflow.spanType"]) == kind
    ]


def test_mlflow_trace_imports_its_model_calls_and_tools(
    corpus_dir: Path, cli: Cli, mlflow_trace: Path
) -> None:
    source = json.loads(mlflow_trace.read_text(encoding="utf-8"))
    trace = added_trace(cli, corpus_dir, mlflow_trace, "mlflow")
    assert trace["source"]["format"] == "mlflow"
    models = [e for e in trace["events"] if e["type"] == "model_call"]
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    chat_spans, tool_spans = _spans(source, "CHAT_MODEL"), _spans(source, "TOOL")
    assert len(models) == len(chat_spans) == 2 and len(tools) == len(tool_spans) == 2
    for event, span in zip(models, chat_spans, strict=True):
        asked = json.loads(span["attributes"]["mlflow.spanInputs"])
        answer = json.loads(span["attributes"]["mlflow.spanOutputs"])
        message = answer["choices"][0]["message"]
        assert [m["content"] for m in event["request"]["messages"]] == [
            m.get("content") for m in asked["messages"]
        ]
        assert event["response"]["content"] == message["content"]
        assert [c["name"] for c in event["response"].get("tool_calls", [])] == [
            c["function"]["name"] for c in message["tool_calls"] or []
        ]
        assert event["model"] == answer["model"]
    ok, failed = tool_spans
    assert tools[0]["tool"] == ok["name"]
    assert tools[0]["arguments"] == json.loads(ok["attributes"]["mlflow.spanInputs"])
    assert tools[0]["result"] == json.loads(ok["attributes"]["mlflow.spanOutputs"])
    raised = failed["events"][0]["attributes"]
    assert tools[1]["error"] == {
        "type": raised["exception.type"], "message": raised["exception.message"]
    }  # fmt: skip
    assert "result" not in tools[1]
    # the calls the model asked for are the ones the tools ran, ids and all
    asked_ids = [c["id"] for c in models[0]["response"]["tool_calls"]]
    assert [t["call_id"] for t in tools] == asked_ids
    final = json.loads(chat_spans[-1]["attributes"]["mlflow.spanOutputs"])
    assert trace["terminal"]["output"] == final["choices"][0]["message"]["content"]


def test_mlflow_tool_span_without_outputs_is_incomplete(
    corpus_dir: Path, cli: Cli, mlflow_trace: Path, tmp_path: Path
) -> None:
    source = json.loads(mlflow_trace.read_text(encoding="utf-8"))
    ok = _spans(source, "TOOL")[0]
    del ok["attributes"]["mlflow.spanOutputs"]
    export = tmp_path / "no-output.json"
    export.write_text(json.dumps(source), encoding="utf-8")
    refused = cli("-C", corpus_dir, "add", export, "--id", "mlflow-gap")
    assert refused.code == 2 and "neither result nor error" in refused.err
    kept = cli("-C", corpus_dir, "add", export, "--id", "mlflow-gap", "--allow-incomplete")
    assert kept.code == 0, kept.err
