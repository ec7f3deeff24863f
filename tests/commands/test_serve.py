"""`corpus serve CASE`: the example corpus's case answers a curl'd chat completion with the
recorded answer, and the verdict is printed at exit (Ctrl-C); a non-loopback --host is refused."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, ROOT


def recorded_first_call(root: Path, case: str) -> dict[str, Any]:
    """The case's first model call, read from its trace.yaml."""
    trace = yaml.safe_load((root / "cases" / case / "trace.yaml").read_text(encoding="utf-8"))
    return next(e for e in trace["events"] if e["type"] == "model_call")


def test_serve_answers_a_curled_chat_completion_and_prints_the_verdict_at_exit(
    tmp_path: Path,
) -> None:
    curl = shutil.which("curl")
    if curl is None:
        pytest.skip("curl is not installed")
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    results = tmp_path / "serve.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "corpus_tool", "serve", "refund-success", "--results", results]
    served = subprocess.Popen(
        [str(a) for a in argv], cwd=root, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert served.stdout is not None
        lines = [served.stdout.readline() for _ in range(4)]
        urls = dict(line.strip().split("=", 1) for line in lines)
        call = recorded_first_call(root, "refund-success")
        body = {"model": call["model"], **call["request"]}
        done = subprocess.run(
            [curl, "-sS", f"{urls['OPENAI_BASE_URL']}/chat/completions",
             "-H", "content-type: application/json", "-d", json.dumps(body)],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        answer = json.loads(done.stdout)
        served.send_signal(signal.SIGINT)
        rest, _ = served.communicate(timeout=120)
    finally:
        if served.poll() is None:
            served.kill()
            served.wait()
    message = answer["choices"][0]["message"]
    calls = [
        {
            "id": c["id"],
            "name": c["function"]["name"],
            "arguments": json.loads(c["function"]["arguments"]),
        }
        for c in message["tool_calls"]
    ]
    assert calls == call["response"]["tool_calls"]
    assert message["content"] == call["response"]["content"]
    assert answer["choices"][0]["finish_reason"] == "tool_calls"
    assert served.returncode == 1  # the agent stopped after one call: the rest went unused
    assert "FAIL  refund-success" in rest and "UnusedRecording at step 2" in rest
    assert f"results: {results}" in rest
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert [(c["case"], c["verdict"]) for c in doc["cases"]] == [("refund-success", "failed")]
    assert doc["cases"][0]["trajectory"]["events"][0]["type"] == "model_call"


def test_serve_refuses_a_host_that_is_not_the_loopback(tmp_path: Path, cli: Any) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    done = cli("serve", "refund-success", "--host", "0.0.0.0", cwd=root)
    assert done.code == 2
    assert "--host 0.0.0.0" in done.err and "loopback only" in done.err
    assert done.out == ""


def test_serve_ends_by_itself_once_the_last_recorded_request_is_answered(
    tmp_path: Path, cli: Any
) -> None:
    """An agent started by hand (here: two HTTP requests, the recorded ones) gets the recorded
    answers; after the last one serve grades the run (the tool call seen in the second request's
    tool result) and exits 0 without a Ctrl-C."""
    from tests.replay.provider_agents import ANSWER, weather_corpus

    root = weather_corpus(tmp_path / "corpus", cli, "openai")
    trace = yaml.safe_load((root / "cases" / "weather" / "trace.yaml").read_text("utf-8"))
    calls = [e for e in trace["events"] if e["type"] == "model_call"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "corpus_tool", "serve", "weather"]
    served = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert served.stdout is not None
        base = served.stdout.readline().strip().split("=", 1)[1]
        answers = []
        for call in calls:
            body = json.dumps({"model": call["model"], **call["request"]}).encode()
            request = urllib.request.Request(
                f"{base}/chat/completions", body, {"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(request, timeout=60) as answer:
                answers.append(json.load(answer))
        rest, _ = served.communicate(timeout=120)
    finally:
        if served.poll() is None:
            served.kill()
            served.wait()
    assert answers[-1]["choices"][0]["message"]["content"] == ANSWER
    assert served.returncode == 0, rest
    assert "PASS  weather" in rest and "results: " in rest
