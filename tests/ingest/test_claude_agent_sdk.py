"""Claude Agent SDK streams and Claude Code session files: every tool_use and its result.

Fixtures are written here by hand in the producers' shapes: the Agent SDK's stream messages as
the shared sample holds them (tyrchen_session_069d6573: `system/init`, one `assistant` entry
per content block sharing `message.id`, `user` tool_result entries, a closing `result`), and
Claude Code's session JSONL (`uuid`, `parentUuid`, `sessionId`, `timestamp`, `version`,
`isSidechain`, `summary` lines) as described by the session schema in oneryalcin/agent-schemas
claude-code/v2.1.1/session.schema.json (commit cae951333dcc1178e1a6c479da7815d12012b75b).
Expected values are read from the entries by this file's own code, never by the importer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Cli
from tests.ingest.conftest import calls, load, problems

MODEL = "claude-sonnet-4-5-20250929"
SESSION = "5c2f0a52-7d7e-4b43-9a51-2f1b8f3c0e11"
PROMPT = "Fix the failing test in calc.py"


def _entry(kind: str, n: int, message: dict[str, Any] | None, **more: Any) -> dict[str, Any]:
    entry = {
        "parentUuid": f"u{n - 1}" if n else None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/work/calc",
        "sessionId": SESSION,
        "version": "2.1.1",
        "type": kind,
        "uuid": f"u{n}",
        "timestamp": f"2026-01-12T10:00:{n:02d}.000Z",
        **more,
    }
    if message is not None:
        entry["message"] = message
    return entry


def _answer(msg_id: str, block: dict[str, Any], stop: str | None = None) -> dict[str, Any]:
    usage = {"input_tokens": 10, "output_tokens": 5}
    return {"model": MODEL, "id": msg_id, "type": "message", "role": "assistant",
            "content": [block], "stop_reason": stop, "usage": usage}  # fmt: skip


def session_entries() -> list[dict[str, Any]]:
    """A Claude Code session: a prompt, one answer with text and two parallel tool_use
    blocks (one entry each), their results (one failed), a final answer."""
    read = {"type": "tool_use", "id": "toolu_A", "name": "Read",
            "input": {"file_path": "/work/calc/calc.py"}}  # fmt: skip
    bash = {"type": "tool_use", "id": "toolu_B", "name": "Bash",
            "input": {"command": "pytest -q", "description": "Run the tests"}}  # fmt: skip
    shown = [{"type": "text", "text": "     1\u2192def div(a, b):\n     2\u2192    return a/b\n"}]
    return [
        {"type": "summary", "summary": "Fixing calc", "leafUuid": "u7"},
        _entry("user", 1, {"role": "user", "content": PROMPT}),
        _entry("assistant", 2, _answer("msg_1", {"type": "text", "text": "Let me look."})),
        _entry("assistant", 3, _answer("msg_1", read)),
        _entry("assistant", 4, _answer("msg_1", bash, "tool_use")),
        _entry(
            "user",
            5,
            {
                "role": "user",
                "content": [{"tool_use_id": "toolu_A", "type": "tool_result", "content": shown}],
            },
        ),
        _entry(
            "user",
            6,
            {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": "toolu_B",
                        "type": "tool_result",
                        "is_error": True,
                        "content": "Exit code 1\nZeroDivisionError",
                    }
                ],
            },
        ),
        _entry(
            "assistant",
            7,
            _answer("msg_2", {"type": "text", "text": "div fails on 0."}, "end_turn"),
        ),
    ]


def _write(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def _result_text(content: Any) -> Any:
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content)
    return content


def expected(entries: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], Any]]:
    """(tool, input, result or error) per tool_result, in the order the results came, each
    with the tool_use block it answers."""
    uses = {
        b["id"]: b
        for e in entries
        if e["type"] == "assistant"
        for b in e["message"]["content"]
        if b["type"] == "tool_use"
    }
    out: list[tuple[str, dict[str, Any], Any]] = []
    for e in entries:
        content = (e.get("message") or {}).get("content")
        for r in content if e["type"] == "user" and isinstance(content, list) else []:
            if r["type"] == "tool_result":
                use = uses[r["tool_use_id"]]
                text = _result_text(r["content"])
                shown = {"type": "ToolError", "message": text} if r.get("is_error") else text
                out.append((use["name"], use["input"], shown))
    return out


def _model_ids(entries: list[dict[str, Any]]) -> list[str]:
    seen: list[str] = []
    for e in entries:
        if e["type"] == "assistant" and e["message"]["id"] not in seen:
            seen.append(e["message"]["id"])
    return seen


def test_claude_code_session_holds_every_tool_use_and_result(tmp_path: Path) -> None:
    entries = session_entries()
    (run,) = load(_write(tmp_path / f"{SESSION}.jsonl", entries))
    assert run.format == "claude-agent-sdk"
    assert calls(run.body) == expected(entries)
    models = [e for e in run.body["events"] if e["type"] == "model_call"]
    assert len(models) == len(_model_ids(entries))  # one call per message.id, not per block
    first_calls = [b["id"] for e in entries[2:5] for b in e["message"]["content"]
                   if b["type"] == "tool_use"]  # fmt: skip
    assert [c["id"] for c in models[0]["response"]["tool_calls"]] == first_calls
    assert run.body["recorded"]["started_at"] == entries[1]["timestamp"]
    assert run.body["recorded"]["agent"]["version"] == entries[1]["version"]
    assert run.body["input"]["user_message"] == PROMPT
    assert run.body["terminal"] == {"status": "unknown", "output": "div fails on 0."}
    assert problems(run.body) == []


def test_claude_code_session_adds_and_validates(tmp_path: Path, corpus_dir: Path, cli: Cli) -> None:
    path = _write(tmp_path / f"{SESSION}.jsonl", session_entries())
    result = cli("-C", corpus_dir, "add", path, "--id", "claude")
    assert result.code == 0, result.err
    trace = yaml.safe_load((corpus_dir / "cases/claude/trace.yaml").read_text(encoding="utf-8"))
    assert trace["source"]["format"] == "claude-agent-sdk"
    assert [e["tool"] for e in trace["events"] if e["type"] == "tool_call"] == ["Read", "Bash"]
    assert cli("-C", corpus_dir, "validate").code == 0


def sdk_stream() -> list[dict[str, Any]]:
    """The SDK's stream: no times; a `result` entry ends it."""
    base = {"parent_tool_use_id": None, "session_id": SESSION}
    grep = {"type": "tool_use", "id": "toolu_G", "name": "Grep", "input": {"pattern": "div"}}
    return [
        {
            "type": "system",
            "subtype": "init",
            "session_id": SESSION,
            "model": MODEL,
            "tools": ["Bash", "Grep"],
            "claude_code_version": "2.0.20",
            "uuid": "s0",
        },
        {"type": "assistant", "message": _answer("msg_9", grep), **base, "uuid": "a1"},
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": "toolu_G",
                        "type": "tool_result",
                        "content": "calc.py:1:def div",
                    }
                ],
            },
            **base,
            "uuid": "u1",
        },
        {
            "type": "assistant",
            "message": _answer("msg_10", {"type": "text", "text": "Found."}),
            **base,
            "uuid": "a2",
        },
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "num_turns": 2,
            "result": "Found.",
            "session_id": SESSION,
            "total_cost_usd": 0.01,
            "uuid": "r",
        },
    ]


def test_agent_sdk_stream_ends_as_its_result_says(
    tmp_path: Path, corpus_dir: Path, cli: Cli
) -> None:
    entries = sdk_stream()
    path = _write(tmp_path / "stream.jsonl", entries)
    (run,) = load(path)
    assert calls(run.body) == expected(entries)
    assert run.body["terminal"] == {"status": "succeeded", "output": entries[-1]["result"]}
    assert run.body["recorded"]["agent"]["version"] == entries[0]["claude_code_version"]
    assert problems(run.body) == ["start time is missing"]  # the SDK's stream holds no time
    assert cli("-C", corpus_dir, "add", path, "--id", "sdk").code == 2
    assert cli("-C", corpus_dir, "add", path, "--id", "sdk", "--allow-incomplete").code == 0


def _sample_stream(folder: Path) -> list[dict[str, Any]]:
    """The sample's per-message files as one stream: init, each assistant entry in number
    order followed by the user entry holding its tool_use's result, the result last."""

    def number(p: Path) -> int:
        return int(p.stem.split("_")[1])

    users = [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("user_*.json")]
    out = [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("system_*.json")]
    for p in sorted(folder.glob("assistant_*.json"), key=number):
        entry = json.loads(p.read_text(encoding="utf-8"))
        out.append(entry)
        ids = {b["id"] for b in entry["message"]["content"] if b["type"] == "tool_use"}
        out += [u for u in users if {b.get("tool_use_id") for b in u["message"]["content"]} & ids]
    return out + [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("result_*.json")]


def test_agent_sdk_sample_holds_what_its_messages_hold(samples: Path, tmp_path: Path) -> None:
    folder = samples / "claude_agent_sdk" / "tyrchen_session_069d6573"
    if not folder.is_dir():
        pytest.skip("no Claude Agent SDK sample")
    entries = _sample_stream(folder)
    (run,) = load(_write(tmp_path / "sample.jsonl", entries))
    assert calls(run.body) == expected(entries)
    models = [e for e in run.body["events"] if e["type"] == "model_call"]
    assert len(models) == len(_model_ids(entries))
    assert run.body["terminal"]["status"] == "step_limit"  # subtype error_max_turns
    assert problems(run.body) == ["start time is missing"]


def test_subagent_entries_keep_their_own_conversation(tmp_path: Path) -> None:
    """A Task subagent's entries (`parent_tool_use_id`) are its calls, under its own node."""

    def said(msg_id: str, block: dict[str, Any], parent: str | None) -> dict[str, Any]:
        return {"type": "assistant", "message": _answer(msg_id, block),
                "parent_tool_use_id": parent, "session_id": SESSION}  # fmt: skip

    def shown(call_id: str, text: str, parent: str | None) -> dict[str, Any]:
        block = {"type": "tool_result", "tool_use_id": call_id, "content": text}
        return {"type": "user", "message": {"role": "user", "content": [block]},
                "parent_tool_use_id": parent, "session_id": SESSION}  # fmt: skip

    task = {"type": "tool_use", "id": "toolu_T", "name": "Task", "input": {"prompt": "find div"}}
    grep = {"type": "tool_use", "id": "toolu_G", "name": "Grep", "input": {"pattern": "div"}}
    entries = [
        said("msg_1", task, None),
        said("msg_2", grep, "toolu_T"),
        shown("toolu_G", "calc.py:1", "toolu_T"),
        said("msg_3", {"type": "text", "text": "calc.py line 1"}, "toolu_T"),
        shown("toolu_T", "calc.py line 1", None),
        said("msg_4", {"type": "text", "text": "It is in calc.py."}, None),
    ]
    (run,) = load(_write(tmp_path / "sub.jsonl", entries))
    assert calls(run.body) == expected(entries)
    nodes = [e.get("node") for e in run.body["events"]]
    parents = [e.get("parent_tool_use_id") for e in entries]
    sub = [n for n in nodes if n]
    assert len(sub) == sum(1 for p in parents if p) and set(sub) == {"subagent:toolu_T"}
    first_sub_call = next(e for e in run.body["events"] if e.get("node"))
    assert first_sub_call["request"]["messages"] == []  # not the main conversation's messages
