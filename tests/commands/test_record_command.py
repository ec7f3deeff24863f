"""`corpus record -- COMMAND...`: an unchanged agent, written with the real `openai` SDK and no
corpus-tool import, recorded through the proxy against a provider (the loopback scripted model,
corpus_tool/testing/scripted_model.py), and the incident it writes taken by `corpus add`."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.testing.scripted_model import ModelScript, serving
from tests.conftest import Cli

pytest.importorskip("openai", reason="the agent is written with the real openai SDK")

AGENT = textwrap.dedent(
    """
    import json, sys
    from openai import OpenAI

    ORDERS = {"O-1001": {"order_id": "O-1001", "amount_cents": 1299, "currency": "EUR"}}
    TOOLS = [
        {"type": "function", "function": {"name": "get_order", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "create_refund", "parameters": {}}},
    ]

    def get_order(order_id):
        return ORDERS[order_id]

    def create_refund(order_id, amount=None):
        return {"refund_id": "R-77", "amount": amount}

    client = OpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY from the environment
    messages = [
        {"role": "system", "content": "Refund only delivered orders; amounts are in cents."},
        {"role": "user", "content": sys.argv[1]},
    ]
    while True:
        reply = client.chat.completions.create(model="gpt-test", messages=messages, tools=TOOLS)
        said = reply.choices[0].message
        if not said.tool_calls:
            print(json.dumps({"status": "succeeded", "output": said.content}))
            break
        messages.append(said.model_dump(exclude_none=True))
        for call in said.tool_calls:
            result = globals()[call.function.name](**json.loads(call.function.arguments))
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
            )
    """
)


def test_record_writes_an_incident_that_corpus_add_accepts(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    script = ModelScript(seed=3)
    with serving(script) as base_url:
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)  # the user's own provider: the upstream
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        code, out, err = cli(
            "record",
            "--out",
            tmp_path / "incident.json",
            "--agent-version",
            "1.0",
            "--",
            sys.executable,
            tmp_path / "agent.py",
            "Please refund order O-1001",
            cwd=tmp_path,
        )
    assert code == 0, out + err
    said = json.loads(out.strip().splitlines()[-1])  # the agent's own stdout, passed on
    doc = json.loads((tmp_path / "incident.json").read_text(encoding="utf-8"))
    models = [e for e in doc["events"] if e["type"] == "llm_request"]
    tools = [e for e in doc["events"] if e["type"] == "tool_call"]
    # what the provider was asked, counted at the provider
    assert len(models) == len(script.requests) == 3
    for event, asked in zip(models, script.requests, strict=True):
        assert [m["role"] for m in event["messages"]] == [m["role"] for m in asked["messages"]]
        assert event["tools"] == asked["tools"]
        assert event["model"] == "gpt-test"
    # the tool results are what the agent's own functions returned (and sent back)
    assert [(t["tool"], t["input"]) for t in tools] == [
        ("get_order", {"order_id": "O-1001"}),
        ("create_refund", {"order_id": "O-1001", "amount": 1299}),
    ]
    assert tools[0]["result"] == {"order_id": "O-1001", "amount_cents": 1299, "currency": "EUR"}
    assert doc["events"][-1] == {
        "seq": len(doc["events"]),
        "type": "final",
        "status": "succeeded",
        "output": said["output"],
    }
    assert "sk-test-not-a-real-key" not in json.dumps(doc)
    assert "`corpus add" in err

    corpus = tmp_path / "corpus"
    assert cli("init", corpus).code == 0
    code, out, err = cli("-C", corpus, "add", tmp_path / "incident.json", "--id", "recorded")
    assert code == 0, out + err
    assert (corpus / "cases/recorded/trace.yaml").exists()


def test_record_of_a_command_that_calls_no_model_writes_nothing(tmp_path: Path, cli: Cli) -> None:
    out_file = tmp_path / "incident.json"
    code, _, err = cli(
        "record", "--out", out_file, "--agent-version", "1", "--", sys.executable, "-c", "pass"
    )
    assert code == 1
    assert "made no model call" in err and "OPENAI_BASE_URL" in err
    assert not out_file.exists()


def test_record_without_a_command_is_a_usage_error(tmp_path: Path, cli: Cli) -> None:
    code, _, err = cli("record", "--agent-version", "1", cwd=tmp_path)
    assert code == 2 and "after `--`" in err


def _unused(*_: Any) -> None: ...
