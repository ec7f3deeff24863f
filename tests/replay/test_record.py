"""Record mode: the same Runtime around real callables writes a native incident."""

from __future__ import annotations

import hashlib
import json
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
