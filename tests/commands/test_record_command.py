"""`corpus record -- COMMAND...`: an unchanged agent, written with the real `openai` SDK and no
corpus-tool import, recorded through the proxy against a provider (the loopback scripted model,
corpus_tool/testing/scripted_model.py), and the incident it writes taken by `corpus add`."""

from __future__ import annotations

import json
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

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


class _Provider(BaseHTTPRequestHandler):
    """A provider that streams Chat Completions chunks as the API sends them (role chunk, content
    and tool-call argument deltas, the final chunk, usage) and answers Anthropic Messages."""

    bodies: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(body)
        if self.path.endswith("/messages"):
            self._json(_anthropic_answer(body))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in _chunks(body):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.close_connection = True

    def _json(self, answer: dict[str, Any]) -> None:
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def _chunks(body: dict[str, Any]) -> list[dict[str, Any]]:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-s"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    if any(m.get("role") == "tool" for m in body["messages"]):
        words = ["The order ", "has ", "shipped."]
        return [
            chunk({"role": "assistant", "content": ""}),
            *(chunk({"content": w}) for w in words),
            chunk({}, "stop"),
            {**head, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3}},
        ]
    call = {"index": 0, "id": "call_s1", "type": "function"}
    return [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [{**call, "function": {"name": "lookup", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"id": '}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"O-1001"}'}}]}),
        chunk({}, "tool_calls"),
    ]


def _anthropic_answer(body: dict[str, Any]) -> dict[str, Any]:
    last = body["messages"][-1]["content"]
    done = isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)
    content = (
        [{"type": "text", "text": "It shipped."}]
        if done
        else [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"id": "O-1001"}}]
    )
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-s",
        "content": content,
        "stop_reason": "end_turn" if done else "tool_use",
        "usage": {"input_tokens": 5, "output_tokens": 2},
    }


STREAMING_AGENT = textwrap.dedent(
    """
    import json
    from openai import OpenAI

    client = OpenAI()
    messages = [{"role": "user", "content": "where is O-1001?"}]
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]
    seen = []
    while True:
        with client.chat.completions.stream(
            model="gpt-s", messages=messages, tools=tools, stream_options={"include_usage": True}
        ) as stream:
            final = stream.get_final_completion()  # the SDK's own accumulator
        said = final.choices[0].message
        seen.append({"content": said.content, "calls": [
            [c.id, c.function.name, json.loads(c.function.arguments)] for c in said.tool_calls or []
        ], "finish": final.choices[0].finish_reason})
        if not said.tool_calls:
            break
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.function.name,
             "arguments": c.function.arguments}} for c in said.tool_calls]})
        messages.append({"role": "tool", "tool_call_id": said.tool_calls[0].id,
                         "content": json.dumps({"state": "shipped"})})
    print(json.dumps({"status": "succeeded", "output": seen}))
    """
)
ANTHROPIC_AGENT = textwrap.dedent(
    """
    import json
    from anthropic import Anthropic

    client = Anthropic()
    messages = [{"role": "user", "content": "where is O-1001?"}]
    while True:
        said = client.messages.create(
            model="claude-s", max_tokens=100, system="Be brief.", messages=messages
        )
        uses = [b for b in said.content if b.type == "tool_use"]
        if not uses:
            break
        messages.append({"role": "assistant", "content": [b.model_dump() for b in said.content]})
        messages.append({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": uses[0].id, "content": json.dumps({"state": "shipped"})}]})
    print(said.content[0].text)
    """
)


def _record_against(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, agent: str
) -> tuple[dict[str, Any], str]:
    (tmp_path / "agent.py").write_text(agent, encoding="utf-8")
    _Provider.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Provider)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("OPENAI_BASE_URL", base + "/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    try:
        code, out, err = cli(
            "record", "--out", tmp_path / "incident.json", "--agent-version", "1", "--",
            sys.executable, tmp_path / "agent.py", cwd=tmp_path,
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert code == 0, out + err
    return json.loads((tmp_path / "incident.json").read_text(encoding="utf-8")), out


def test_record_of_a_streaming_agent_holds_what_the_sdk_reassembled(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, out = _record_against(tmp_path, cli, monkeypatch, STREAMING_AGENT)
    seen = json.loads(out.strip().splitlines()[-1])["output"]  # what the SDK built, per call
    models = [e for e in doc["events"] if e["type"] == "llm_request"]
    assert len(models) == len(_Provider.bodies) == len(seen) == 2
    for event, built in zip(models, seen, strict=True):
        response = event["response"]
        calls = [[c["id"], c["name"], c["arguments"]] for c in response.get("toolCalls", [])]
        assert (response["content"], calls) == (built["content"], built["calls"])
        assert response["finishReason"] == built["finish"]
        assert "stream" not in event and "stream_options" not in event
    assert models[1]["usage"] == {"prompt_tokens": 9, "completion_tokens": 3}
    [tool] = [e for e in doc["events"] if e["type"] == "tool_call"]
    assert (tool["tool"], tool["input"], tool["result"]) == (
        "lookup",
        {"id": "O-1001"},
        {"state": "shipped"},
    )


def test_record_of_an_anthropic_agent_holds_system_and_tool_use_in_native_terms(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("anthropic", reason="the agent is written with the real anthropic SDK")
    doc, out = _record_against(tmp_path, cli, monkeypatch, ANTHROPIC_AGENT)
    models = [e for e in doc["events"] if e["type"] == "llm_request"]
    assert len(models) == len(_Provider.bodies) == 2
    first, second = models
    assert first["messages"][0] == {"role": "system", "content": "Be brief."}
    assert first["response"]["toolCalls"] == [
        {"id": "toolu_1", "name": "lookup", "arguments": {"id": "O-1001"}}
    ]
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool"]
    assert second["messages"][3]["tool_call_id"] == "toolu_1"
    [tool] = [e for e in doc["events"] if e["type"] == "tool_call"]
    assert tool["result"] == {"state": "shipped"}
    assert doc["events"][-1]["output"] == "It shipped." == out.strip()


def test_a_recorded_incident_replays_the_unchanged_agent_and_catches_a_changed_prompt(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole loop without a line of corpus-tool in the agent: record it against the
    provider, add the incident, replay the same program through `agent.command` (the provider
    doubles answer it), and a changed system prompt fails as a ModelRequest divergence."""
    corpus = tmp_path / "corpus"
    assert cli("init", corpus).code == 0
    (corpus / "agent.py").write_text(AGENT, encoding="utf-8")
    # the command a replay runs: the same program, its user message from the case input file
    (corpus / "run_agent.py").write_text(
        "import json, runpy, sys\n"
        "message = json.load(open(sys.argv[1]))['user_message']\n"
        "sys.argv = ['agent.py', message]\n"
        "runpy.run_path('agent.py', run_name='__main__')\n",
        encoding="utf-8",
    )
    script = ModelScript(seed=3)
    with serving(script) as base_url:
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        code, out, err = cli(
            *("record", "--out", tmp_path / "incident.json", "--agent-version", "1.0", "--"),
            *(sys.executable, corpus / "agent.py", "Please refund order O-1001"),
            cwd=corpus,
        )
    assert code == 0, out + err
    monkeypatch.delenv("OPENAI_BASE_URL")
    code, out, err = cli("-C", corpus, "add", tmp_path / "incident.json", "--id", "recorded")
    assert code == 0, out + err
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    command = f'  command: ["{sys.executable}", "run_agent.py", "{{input}}"]'
    assert "  # entrypoint: my_agent.main:run" in text  # what `corpus init` writes
    config.write_text(text.replace("  # entrypoint: my_agent.main:run", command), encoding="utf-8")

    code, out, err = cli("-C", corpus, "check", "--format", "json")
    assert code == 0, out + err
    (case,) = json.loads(out)["cases"]
    assert (case["case"], case["verdict"]) == ("recorded", "passed")

    changed = AGENT.replace("Refund only delivered orders", "Refund every order")
    (corpus / "agent.py").write_text(changed, encoding="utf-8")
    code, out, err = cli("-C", corpus, "check", "--format", "json")
    assert code == 1, out + err
    (case,) = json.loads(out)["cases"]
    assert case["verdict"] == "failed"
    assert case["divergence"]["kind"] == "ModelRequest"
