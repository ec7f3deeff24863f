"""Native incidents a logging gateway exported, from agents written with the real `openai` SDK
(tests/ingest/gateway.py): two agents behind one gateway, one shared log, a provider that
restarts tool-call ids each turn and defaults the gateway logs. What each case holds is
counted from the gateway's log of the wire (the request bodies the SDK sent, the answers the
provider gave), never from the importer; then the same agent, unchanged, replays green and a
changed request parameter fails."""

from __future__ import annotations

import importlib.util
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Cli
from tests.ingest import gateway

pytest.importorskip("openai", reason="the agents are written with the real openai SDK")

QUESTIONS = {"desk-a": "Stock of A1 and B2?", "desk-b": "Stock of C3, D4 and E5?"}
DESCRIBE = {"latencyMs", "provider", "requestId"}
"""The gateway's bookkeeping of a call: docs/formats.md keeps it in `extra`."""


def _module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("stock_agent", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def recorded(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """A corpus holding each session as an active case; the log's lines by session; the
    incidents the gateway exported, by session."""
    root = tmp_path / "corpus"
    assert cli("init", root).code == 0
    (root / "stock_agent.py").write_text(gateway.agent_source(), encoding="utf-8")
    agent = _module(root / "stock_agent.py")
    log = tmp_path / "gateway.jsonl"
    answers: dict[str, str] = {}
    with gateway.gateway(log) as base:
        monkeypatch.setenv("OPENAI_BASE_URL", base)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        runs = [
            threading.Thread(target=lambda s=s, q=q: answers.update({s: agent.ask(s, q)}))
            for s, q in QUESTIONS.items()
        ]
        for run in runs:
            run.start()
        for run in runs:
            run.join()
    assert set(answers) == set(QUESTIONS)
    lines = [json.loads(t) for t in log.read_text(encoding="utf-8").splitlines()]
    by_session = {s: [line for line in lines if line["session"] == s] for s in QUESTIONS}
    exported = gateway.incidents(log, tmp_path)
    for session, path in exported.items():
        added = cli("add", path, "--id", session, cwd=root)
        assert added.code == 0, added.err
        expected = root / "cases" / session / "expected.yaml"
        spec = yaml.safe_load(expected.read_text(encoding="utf-8"))
        spec["status"] = "active"
        expected.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    docs = {s: json.loads(p.read_text(encoding="utf-8")) for s, p in exported.items()}
    return root, by_session, docs


def _trace(root: Path, case: str) -> dict[str, Any]:
    return yaml.safe_load((root / "cases" / case / "trace.yaml").read_text(encoding="utf-8"))


def test_each_case_holds_what_went_over_the_wire(recorded: Any) -> None:
    root, by_session, docs = recorded
    for session, wire in by_session.items():
        skus = len(re.findall(r"\b[A-Z]\d\b", QUESTIONS[session]))
        assert len(wire) == skus + 1, "one model call per tool round, then the answer"
        events = _trace(root, session)["events"]
        models = [e for e in events if e["type"] == "model_call"]
        tools = [e for e in events if e["type"] == "tool_call"]
        assert len(models) == len(wire)
        for call, line in zip(models, wire, strict=True):
            sent = line["request"]
            assert call["request"]["messages"][-1]["content"] == sent["messages"][-1]["content"]
            assert call["request"]["temperature"] == sent["temperature"]
            params = {k: v for k, v in sent.items() if k not in ("model", "messages", "tools")}
            del params["temperature"]
            assert {"presence_penalty", "parallel_tool_calls", "seed"} <= set(params)
            assert call["request"]["params"] == {**gateway.DEFAULTS, **params}
            assert [t["function"]["name"] for t in call["request"]["tools"]] == [
                t["function"]["name"] for t in sent["tools"]
            ]
            assert set(call["extra"]) >= DESCRIBE
        asked = [
            c for line in wire for c in line["response"]["choices"][0]["message"].get(
                "tool_calls") or []
        ]  # fmt: skip
        assert {c["id"] for c in asked} == {"call_0"}, "the provider restarts ids every turn"
        ids = ["call_0"] + [f"call_0~{n}" for n in range(2, len(asked) + 1)]
        assert [t["call_id"] for t in tools] == ids
        assert [t["arguments"] for t in tools] == [json.loads(c["function"]["arguments"])
                                                   for c in asked]  # fmt: skip
        sent_back = [
            json.loads(m["content"]) for m in wire[-1]["request"]["messages"] if m["role"] == "tool"
        ]
        assert [t["result"] for t in tools] == sent_back
        sent_asked = [m for m in wire[-1]["request"]["messages"] if m["role"] == "assistant"]
        assert all("function" in c for m in sent_asked for c in m["tool_calls"])
        assert all(m["refusal"] is None for m in sent_asked), "the SDK's message, sent back"
        kept = [m for m in models[-1]["request"]["messages"] if m["role"] == "assistant"]
        assert [[(c["name"], c["arguments"]) for c in m["tool_calls"]] for m in kept] == [
            [(c["function"]["name"], json.loads(c["function"]["arguments"]))
             for c in m["tool_calls"]] for m in sent_asked
        ]  # fmt: skip
        assert not any("refusal" in m or "annotations" in m for m in kept)
        first_user = next(m for m in wire[0]["request"]["messages"] if m["role"] == "user")
        assert _trace(root, session)["input"]["user_message"] == first_user["content"]
        extra = _trace(root, session)["extra"]
        final = docs[session]["events"][-1]
        assert extra["final"] == {"timestamp": final["timestamp"], "node": final["node"]}
        answered = [m for m in models if m["response"].get("tool_calls")]
        assert all(m["extra"]["response"]["toolCalls"] == [{"type": "function"}] for m in answered)


def _checked(cli: Cli, root: Path) -> dict[str, Any]:
    done = cli("check", "--format", "json", cwd=root)
    assert done.code in (0, 1), done.out + done.err
    return {c["case"]: c for c in json.loads(done.out)["cases"]}


def _use(root: Path, source: str, name: str, **replay: Any) -> None:
    (root / f"{name}.py").write_text(source, encoding="utf-8")
    path = root / "corpus.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config.setdefault("agent", {})["entrypoint"] = f"{name}:run"
    config["agent"].pop("command", None)
    config["replay"] = {**(config.get("replay") or {}), **replay}
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def test_the_unchanged_agent_replays_and_a_changed_parameter_fails(recorded: Any, cli: Cli) -> None:
    root, _, _ = recorded
    _use(root, gateway.agent_source(), "unchanged")
    cases = _checked(cli, root)
    assert {c: v["verdict"] for c, v in cases.items()} == dict.fromkeys(QUESTIONS, "passed")

    _use(root, gateway.agent_source(presence=0.9), "changed")
    cases = _checked(cli, root)
    for case in cases.values():
        assert case["verdict"] == "failed"
        assert (case["divergence"]["kind"], case["divergence"]["step"]) == ("ModelRequest", 1)
        assert "presence_penalty" in json.dumps(case["divergence"]), case["divergence"]

    # every field compared: the provider's defaults the gateway logged, the agent never sent
    _use(root, gateway.agent_source(), "unchanged_all", request_fields="all")
    cases = _checked(cli, root)
    for case in cases.values():
        assert case["verdict"] == "failed"
        assert "top_p" in json.dumps(case["divergence"]), case["divergence"]
