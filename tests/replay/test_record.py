"""Record mode: the same Runtime around real callables writes a native incident."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool import ModelResponse, ToolCall
from corpus_tool.cli import main
from corpus_tool.replay.record import RecordMeta, record
from tests.conftest import EXAMPLES, ROOT

AGENT = textwrap.dedent(
    """
    from corpus_tool import ToolError

    def run(case_input, rt):
        messages = [{"role": "user", "content": case_input["user_message"]}]
        reply = rt.model(messages, tools=[{"name": "lookup"}, {"name": "flaky"}], model="m1")
        seen = []
        for call in reply.tool_calls:
            try:
                seen.append(rt.tool(call.name, call.arguments))
            except ToolError as err:
                seen.append(err.type)
        rt.emit("side_effect", kind="mail_sent", target="u_1001", data={"n": len(seen)})
        messages.append({"role": "tool", "content": repr(seen)})
        final = rt.model(messages, model="m1")
        ticket = rt.random.randint(1000, 9999)
        return {"status": "succeeded", "output": f"{final.content} #{ticket} {rt.now():%H:%M:%S}"}
    """
)


def fake_model(messages: list[dict[str, Any]], **request: Any) -> ModelResponse:
    if len(messages) == 1:
        calls = (ToolCall("k1", "lookup", {"id": "O-1001"}), ToolCall("k2", "flaky", {}))
        return ModelResponse(None, calls)
    return ModelResponse("done")


def flaky(args: dict[str, Any]) -> Any:
    raise ValueError("service said no")


def make_incident(tmp_path: Path) -> Path:
    sys.path.insert(0, str(tmp_path / "corpus"))
    try:
        import shop_agent
    finally:
        sys.path.pop(0)
        sys.modules.pop("shop_agent", None)
    meta = RecordMeta(
        trace_id="t-shop-1",
        agent={"name": "shop", "version": "1.0"},
        started_at=datetime(2025, 6, 1, 10, 0, tzinfo=timezone.utc),
        seed=7,
    )
    incident = tmp_path / "incident.json"
    record(
        shop_agent.run,
        {"user_message": "where is O-1001?", "context": {"userId": "u_1001"}},
        model=fake_model,
        tools={"lookup": lambda args: {"id": args["id"], "state": "shipped"}, "flaky": flaky},
        meta=meta,
        egress={"lookup": "orders.internal"},
        timer=lambda name: 250,
        out=incident,
    )
    return incident


@pytest.fixture()
def shop_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    corpus = tmp_path / "corpus"
    assert main(["init", str(corpus)]) == 0
    config = corpus / "corpus.yaml"
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["agent"] = {"entrypoint": "shop_agent:run"}
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    (corpus / "shop_agent.py").write_text(AGENT, encoding="utf-8")
    capsys.readouterr()
    return corpus


def test_record_writes_a_native_incident(shop_corpus: Path, tmp_path: Path) -> None:
    doc = json.loads(make_incident(tmp_path).read_text(encoding="utf-8"))
    assert doc["traceId"] == "t-shop-1" and doc["startedAt"] == "2025-06-01T10:00:00.000Z"
    kinds = [e["type"] for e in doc["events"]]
    assert kinds == ["llm_request", "tool_call", "tool_call", "side_effect", "llm_request", "final"]
    lookup, failed = doc["events"][1], doc["events"][2]
    assert lookup["callId"] == "k1" and lookup["egress"] == "orders.internal"
    assert failed["error"] == {"type": "ValueError", "message": "service said no"}
    assert doc["events"][-1]["status"] == "succeeded"


def test_record_round_trip_replays_strictly(
    shop_corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    incident = make_incident(tmp_path)
    assert main(["-C", str(shop_corpus), "add", str(incident), "--id", "shop"]) == 0
    capsys.readouterr()
    code = main(["-C", str(shop_corpus), "replay", "shop", "--mode", "strict", "--format", "json"])
    case = json.loads(capsys.readouterr().out)["cases"][0]
    assert case["divergence"] is None
    assert (case["verdict"], code) == ("passed", 0)


def test_record_example_incidents_are_what_the_agent_produces(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(EXAMPLES / "record_incidents.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    committed = sorted((EXAMPLES / "incidents").glob("*.json"))
    assert [p.name for p in committed] == sorted(p.name for p in tmp_path.glob("*.json"))
    for path in committed:
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name
        trace = yaml.safe_load((EXAMPLES / "corpus/cases" / path.stem / "trace.yaml").read_text())
        assert trace["source"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def _readme_example() -> str:
    """The record-mode example of docs/agents.md (moved there from the README)."""
    text = (ROOT / "docs/agents.md").read_text(encoding="utf-8")
    section = text.split("**Record mode.**", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_readme_record_example_runs_and_its_case_replays(tmp_path: Path) -> None:
    from tests.conftest import TEST_KEY

    corpus = tmp_path / "corpus"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CORPUS_REDACTION_KEY": TEST_KEY}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, *args], cwd=corpus, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    corpus.mkdir()
    run("-m", "corpus_tool", "init", ".")
    (corpus / "record_example.py").write_text(_readme_example(), encoding="utf-8")
    config = corpus / "corpus.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "# entrypoint: my_agent.main:run", "entrypoint: record_example:run"
        ),
        encoding="utf-8",
    )
    run("record_example.py")  # as a user runs the README's script
    incident = json.loads((corpus / "incidents/t-42.json").read_text(encoding="utf-8"))
    assert [e["type"] for e in incident["events"]] == ["llm_request", "tool_call", "final"]
    assert incident["events"][0]["model"] == "gpt-4.1-2025-04-14"
    run("-m", "corpus_tool", "add", "incidents/t-42.json", "--id", "where-is-my-order")
    done = run("-m", "corpus_tool", "check")
    assert "PASS  where-is-my-order" in done.stdout


def test_record_api_is_importable_from_the_package() -> None:
    import corpus_tool
    from corpus_tool.replay import native_out
    from corpus_tool.replay import record as record_module

    assert corpus_tool.RecordMeta is native_out.RecordMeta
    assert corpus_tool.ModelFn is record_module.ModelFn
    assert corpus_tool.ToolFn is record_module.ToolFn
    assert {"RecordMeta", "ModelFn", "ToolFn", "record"} <= set(corpus_tool.__all__)
    assert {"RecordMeta", "ModelFn", "ToolFn"} <= set(dir(corpus_tool))


def test_record_refuses_model_calls_without_a_model_id(tmp_path: Path) -> None:
    from corpus_tool.errors import UsageError

    asked: list[Any] = []

    def unnamed(case_input: dict[str, Any], rt: Any) -> Any:
        with contextlib.suppress(Exception):  # a catch-all cannot carry on past the refusal
            rt.model([{"role": "user", "content": "hi"}], tools=[{"name": "lookup"}])
        return {"status": "succeeded", "output": "hi"}

    def model(messages: list[Any], **request: Any) -> ModelResponse:
        asked.append(request)
        return ModelResponse("hello")

    out = tmp_path / "incident.json"
    with pytest.raises(UsageError) as caught:
        meta = RecordMeta(trace_id="t-1", agent={"name": "a", "version": "1"})
        record(unnamed, {"user_message": "hi"}, model=model, tools={}, meta=meta, out=out)
    assert "model call at step 1 names no model id" in str(caught.value)
    assert 'rt.model(messages, ..., model="<model id>")' in str(caught.value)
    assert asked == [], "the real model is not paid for a recording that is refused"
    assert not out.exists(), "nothing is written"
