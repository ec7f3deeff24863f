"""MCP JSON-RPC logs from the real `mcp` SDK: a client calls a stdio server through a relay
that logs every line, as a host's MCP log holds them. Ground truth is what the client got
back (`CallToolResult`), never the importer's output.

A log holds tool calls only: kept with --allow-incomplete (known_unknown), replayed strictly
by an agent that calls the tools itself; or paired with the model's trace of the run
(`--tools-log`), which makes an ordinary case that replays strictly against a chat agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool import Runtime, ToolError
from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems
from tests.ingest.replaying import chat_agent
from tests.replaying import replay_case

HERE = Path(__file__).parent
SCRIPT = [
    ("get_order", {"order_id": "A100"}),
    ("refund", {"order_id": "A100", "amount": 99999}),
    ("refund", {"order_id": "A100", "amount": 500}),
]
SYSTEM = "You refund orders; amounts are in cents."
ASK = "Refund 5.00 on order A100."
ANSWER = "Refunded 500 cents on A100."
MODEL = "gpt-4.1-2025-04-14"
Truth = list[tuple[str, dict[str, Any], Any]]


async def _session(log: Path) -> Truth:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    relay = [str(HERE / "mcp_tap.py"), str(log), "--", sys.executable, str(HERE / "mcp_shop.py")]
    truth: Truth = []
    async with Client(StdioServerParameters(command=sys.executable, args=relay)) as client:
        for name, args in SCRIPT:
            got = await client.call_tool(name, args)
            text = got.content[0].text  # type: ignore[union-attr]
            outcome = {"type": "ToolError", "message": text} if got.is_error else None
            truth.append((name, args, outcome or got.structured_content))
    return truth


@pytest.fixture(scope="module")
def mcp_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Truth]]:
    """One real session per test run: xdist workers share it through a locked directory
    (each session starts two Python processes and the SDK; a second one proves nothing)."""
    shared = tmp_path_factory.getbasetemp().parent / "mcp-shop"
    shared.mkdir(exist_ok=True)
    log, truth_file = shared / "mcp-shop.log", shared / "truth.json"
    with (shared / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not truth_file.exists():
            truth_file.write_text(json.dumps(asyncio.run(_session(log))), encoding="utf-8")
    truth = [tuple(t) for t in json.loads(truth_file.read_text(encoding="utf-8"))]
    yield log, truth  # type: ignore[misc]


def _tool_driver(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """An agent without a model: it runs the scripted calls itself (a fixed workflow)."""
    for name, args in SCRIPT:
        with contextlib.suppress(ToolError):
            rt.tool(name, args)
    return {"status": "unknown", "output": None}


def test_mcp_log_holds_what_the_client_got(mcp_run: tuple[Path, Truth]) -> None:
    log, truth = mcp_run
    (run,) = load(log)
    assert run.format == "mcp"
    assert calls(run.body) == truth
    assert [e["call_id"] for e in run.body["events"]] == ["mcp-2", "mcp-4", "mcp-5"]
    first = re.match(r"(\S+) ", log.read_text(encoding="utf-8")).group(1)  # type: ignore[union-attr]
    assert run.body["recorded"]["started_at"] == first
    assert run.body["recorded"]["agent"]["name"] == "mcp"  # the SDK client's clientInfo
    assert {t["name"] for t in run.body["extra"]["tools_offered"]} == {"get_order", "refund"}
    assert any("answers no model request" in p for p in problems(run.body))


def test_mcp_tools_only_case_is_kept_as_known_unknown_and_replays(
    mcp_run: tuple[Path, Truth], corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, _ = mcp_run
    assert main(["-C", str(corpus), "add", str(log), "--id", "shop"]) == 2
    assert "answers no model request" in capsys.readouterr().err
    assert main(["-C", str(corpus), "add", str(log), "--id", "shop", "--allow-incomplete"]) == 0
    expected = yaml.safe_load((corpus / "cases/shop/expected.yaml").read_text(encoding="utf-8"))
    assert expected["status"] == "known_unknown"
    assert main(["-C", str(corpus), "validate"]) == 0
    result = replay_case(corpus / "cases/shop", _tool_driver)
    assert result.divergence is None, result.divergence


def test_mcp_json_lines_without_times_are_kept_without_a_start(
    mcp_run: tuple[Path, Truth], corpus: Path, tmp_path: Path
) -> None:
    log, truth = mcp_run
    lines = [line[line.index("{") :] for line in log.read_text(encoding="utf-8").splitlines()]
    plain = tmp_path / "wire.jsonl"
    plain.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (run,) = load(plain)
    assert calls(run.body) == truth
    assert main(["-C", str(corpus), "add", str(plain), "--id", "wire", "--allow-incomplete"]) == 0
    trace = yaml.safe_load((corpus / "cases/wire/trace.yaml").read_text(encoding="utf-8"))
    assert trace["recorded"]["missing"] == ["started_at"]
    assert main(["-C", str(corpus), "validate"]) == 0
    assert replay_case(corpus / "cases/wire", _tool_driver).divergence is None


def _model_trace(path: Path, truth: Truth, started: str, amounts: tuple[int, ...]) -> Path:
    """What a host that logs only its model calls writes (native format, no tool_call events)."""
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": ASK},
    ]
    events = []
    asked = [("get_order", {"order_id": "A100"})] + [
        ("refund", {"order_id": "A100", "amount": a}) for a in amounts
    ]
    for n, (name, args) in enumerate(asked, start=1):
        call = {"id": f"c{n}", "name": name, "arguments": args}
        response = {"content": None, "toolCalls": [call]}
        events.append({"type": "llm_request", "model": MODEL, "messages": list(history),
                       "response": response})  # fmt: skip
        outcome = truth[n - 1][2]
        shown = outcome["message"] if name == "refund" and "type" in outcome else outcome
        history += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "content": shown, "tool_call_id": f"c{n}"},
        ]
    events.append({"type": "llm_request", "model": MODEL, "messages": list(history),
                   "response": {"content": ANSWER}})  # fmt: skip
    events.append({"type": "final", "status": "succeeded", "output": ANSWER})
    incident = {
        "schemaVersion": "1.0", "traceId": "t-shop-1", "startedAt": started,
        "agent": {"name": "shop-agent", "version": "1.0.0"}, "input": {"userMessage": ASK},
        "events": [{"seq": i, **e} for i, e in enumerate(events, start=1)],
    }  # fmt: skip
    path.write_text(json.dumps(incident), encoding="utf-8")
    return path


def test_model_trace_paired_with_the_mcp_log_replays_strictly(
    mcp_run: tuple[Path, Truth], corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, truth = mcp_run
    started = log.read_text(encoding="utf-8").split(" ", 1)[0]
    model = _model_trace(tmp_path / "model.json", truth, started, (99999, 500))
    assert main(["-C", str(corpus), "add", str(model)]) == 2  # alone: the tools are unanswered
    assert "no tool_call event answers it" in capsys.readouterr().err
    assert main(["-C", str(corpus), "add", str(model), "--tools-log", str(log), "--id", "p"]) == 0
    trace = yaml.safe_load((corpus / "cases/p/trace.yaml").read_text(encoding="utf-8"))
    paired = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert [e["call_id"] for e in paired] == ["c1", "c2", "c3"]
    assert [(e["tool"], e["arguments"], e.get("result", e.get("error"))) for e in paired] == truth
    assert [e["type"] for e in trace["events"]] == ["model_call", "tool_call"] * 3 + ["model_call"]
    assert main(["-C", str(corpus), "validate"]) == 0
    result = replay_case(corpus / "cases/p", chat_agent(SYSTEM, MODEL))
    assert result.divergence is None, result.divergence
    assert result.terminal.to_doc() == {"status": "succeeded", "output": ANSWER}


def test_mcp_log_of_another_run_is_refused_by_name(
    mcp_run: tuple[Path, Truth], corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, truth = mcp_run
    model = _model_trace(tmp_path / "model.json", truth, "2025-06-01T10:00:00Z", (99999, 600))
    assert main(["-C", str(corpus), "add", str(model), "--tools-log", str(log)]) == 2
    err = capsys.readouterr().err
    assert 'refund({"amount": 500, "order_id": "A100"}) (JSON-RPC id 5)' in err
    assert "answers no tool call the model asked for" in err
    assert not [p for p in (corpus / "cases").iterdir() if p.is_dir()]


def test_mcp_jsonrpc_errors_and_cancellations(tmp_path: Path) -> None:
    def call(n: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
        params = {"name": name, "arguments": args}
        return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}

    cancel = {"requestId": 2, "reason": "timeout"}
    messages = [
        call(1, "x", {}),
        call(2, "slow", {"n": 1}),
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: x"}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel},
        call(3, "echo", {"s": "[1]"}),
        {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "[1, 2]"}]}},
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in messages), encoding="utf-8")
    (run,) = load(path)
    assert calls(run.body) == [
        ("x", {}, {"type": "InvalidParams", "message": "Unknown tool: x"}),
        ("slow", {"n": 1}, {"type": "Cancelled", "message": "timeout"}),
        ("echo", {"s": "[1]"}, [1, 2]),  # JSON text of a single text part: the structure
    ]


def test_mcp_messages_as_one_json_array_hold_what_the_client_got(
    mcp_run: tuple[Path, Truth], tmp_path: Path
) -> None:
    log, truth = mcp_run
    lines = log.read_text(encoding="utf-8").splitlines()
    doc = tmp_path / "messages.json"
    doc.write_text(json.dumps([json.loads(line[line.index("{") :]) for line in lines]))
    (run,) = load(doc)
    assert run.format == "mcp"
    assert calls(run.body) == truth


def test_mcp_marker_in_a_too_deep_document_is_refused_in_one_line(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not a crash: such a file was once parsed by the sniffing alone, past the depth limit."""
    deep = tmp_path / "deep.json"
    deep.write_text('{"jsonrpc": "2.0", "id": 1, "result": ' + "[" * 5000 + "]" * 5000 + "}")
    assert main(["-C", str(corpus), "add", str(deep)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(deep) in err and "internal error" not in err
    assert not [p for p in (corpus / "cases").iterdir() if p.is_dir()]
