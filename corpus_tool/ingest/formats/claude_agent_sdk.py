"""Claude Agent SDK message streams and Claude Code session files (JSON lines).

Each line is one entry `{type, message?, uuid, session_id | sessionId, ...}`:
- `system` (`subtype: init`: `model`, `tools`, `claude_code_version`, `cwd`);
- `assistant`: `message` is an Anthropic Messages API message (`id`, `model`, `content`
  blocks `text` / `thinking` / `tool_use {id, name, input}`, `stop_reason`, `usage`). Claude
  Code writes one entry per content block, all with the answer's `message.id`: the entries
  of one id are one model call;
- `user`: the prompt (text), or `tool_result {tool_use_id, content, is_error}` blocks
  answering the model's `tool_use`;
- `result` (the SDK's last message): `subtype` (`success`, `error_max_turns`,
  `error_during_execution`, ...), `is_error`, `result` (the final text), cost and usage.
Claude Code session files add `timestamp`, `parentUuid`, `isSidechain` and `version`, and
hold entries of other types (`summary`, `file-history-snapshot`), which carry no call.

A subagent's entries (`parent_tool_use_id` set, or `isSidechain`) keep a conversation of
their own; their events name it as their node. The SDK's stream holds no time: such a run
lacks a start time.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest import json_lines
from corpus_tool.ingest.body import last_answer, trace_body
from corpus_tool.ingest.build import model_event, tool_event
from corpus_tool.ingest.coerce import error, obj, opt_id
from corpus_tool.ingest.imported import Imported

_TYPES = ("user", "assistant", "system", "result")
_ENDS = {"success": "succeeded", "error_max_turns": "step_limit"}
_ENDS["error_max_budget_usd"] = "step_limit"


class ClaudeAgentSdkImporter:
    """Claude Agent SDK / Claude Code session entries, as JSON lines or a JSON array."""

    name = "claude-agent-sdk"

    def sniff_bytes(self, raw: bytes, path: Path) -> bool:
        values = json_lines.head(raw)
        return values is not None and _looks_like_entries(values)

    def read(self, raw: bytes, path: Path) -> Any:
        return json_lines.read(raw, path)

    def sniff(self, data: Any, path: Path) -> bool:
        return isinstance(data, list) and _looks_like_entries(data[:50])

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError(
                "not a Claude Agent SDK stream: expected JSON lines of "
                "{type: user|assistant|system|result, message, session_id}",
                path,
            )
        entries = [e for e in data if isinstance(e, dict) and e.get("type") in _TYPES]
        init = next((e for e in entries if e.get("subtype") == "init"), {})
        result = next((e for e in reversed(entries) if e["type"] == "result"), None)
        events = _ClaudeReader().events(entries)
        times = sorted(str(e["timestamp"]) for e in entries if e.get("timestamp"))
        version = init.get("claude_code_version") or next(
            (e.get("version") for e in entries if e.get("version")), None
        )
        body = trace_body(
            events,
            started_at=times[0] if times else None,
            agent={"name": "claude-agent-sdk", "version": opt_id(version)},
            user_message=_prompt(entries),
            terminal=_terminal(result, events),
            extra={
                "session_id": _session(entries),
                "tools_offered": init.get("tools"),
                "cwd": init.get("cwd"),
                "result": {k: v for k, v in (result or {}).items() if k not in ("result", "type")},
            },
        )
        return [Imported(self.name, body, label=_session(entries) or path.stem)]


IMPORTER = ClaudeAgentSdkImporter()


def _looks_like_entries(values: list[Any]) -> bool:
    """Entries with a known `type`, one at least an Anthropic message, all of one session."""
    dicts = [v for v in values if isinstance(v, dict)]
    if not dicts or len(dicts) != len(values):
        return False
    typed = [v for v in dicts if v.get("type") in _TYPES]
    with_message = [v for v in typed if isinstance(v.get("message"), dict)]
    return bool(with_message) and all(
        ("session_id" in v or "sessionId" in v) and "role" in v["message"] for v in with_message
    )


def _session(entries: list[dict[str, Any]]) -> str | None:
    return next((opt_id(e.get("session_id") or e.get("sessionId")) for e in entries if e), None)


def _chain(entry: dict[str, Any]) -> str | None:
    """Which conversation an entry belongs to: the main one (None) or a subagent's."""
    parent = opt_id(entry.get("parent_tool_use_id"))
    if parent:
        return f"subagent:{parent}"
    return "sidechain" if entry.get("isSidechain") else None


class _ClaudeReader:
    """Entries in file order → events; each conversation's messages so far, per chain."""

    def __init__(self) -> None:
        self.out: list[dict[str, Any]] = []
        self.history: dict[str | None, list[dict[str, Any]]] = {}
        self.answers: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        self.asked: dict[str, dict[str, Any]] = {}

    def events(self, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for entry in entries:
            msg = entry.get("message")
            if not isinstance(msg, dict):
                continue
            if entry["type"] == "assistant":
                self._answer(entry, msg)
            elif entry["type"] == "user":
                self._user(entry, msg)
        return self.out

    def _answer(self, entry: dict[str, Any], msg: dict[str, Any]) -> None:
        """An assistant entry: a new model call, or more blocks of one already seen."""
        key = str(msg.get("id") or entry.get("uuid") or len(self.out))
        chain = _chain(entry)
        if key not in self.answers:
            history = self.history.setdefault(chain, [])
            event = model_event(
                opt_id(msg.get("model")), copy.deepcopy(history), None, [],
                node=chain, timestamp=entry.get("timestamp"),
                extra={"message_id": msg.get("id")},
            )  # fmt: skip
            sent: dict[str, Any] = {"role": "assistant", "content": None}
            history.append(sent)
            self.out.append(event)
            self.answers[key] = (event, sent)
        event, sent = self.answers[key]
        self._add_blocks(event, sent, msg)

    def _add_blocks(self, event: dict[str, Any], sent: dict[str, Any], msg: dict[str, Any]) -> None:
        response = event["response"]
        for block in _blocks(msg.get("content")):
            kind = block.get("type")
            if kind == "text":
                text = (response.get("content") or "") + str(block.get("text") or "")
                response["content"] = sent["content"] = text
            elif kind == "thinking":
                extra = event.setdefault("extra", {})
                extra["thinking"] = extra.get("thinking", "") + str(block.get("thinking") or "")
            elif kind in ("tool_use", "server_tool_use"):
                call: dict[str, Any] = {
                    "id": opt_id(block.get("id")),
                    "name": str(block.get("name") or "unknown_tool"),
                    "arguments": obj(block.get("input")),
                }
                response.setdefault("tool_calls", []).append(call)
                sent.setdefault("tool_calls", []).append(copy.deepcopy(call))
                if call["id"]:
                    self.asked[call["id"]] = call
        if msg.get("stop_reason"):
            response["finish_reason"] = str(msg["stop_reason"])
        if msg.get("usage"):
            event["usage"] = msg["usage"]

    def _user(self, entry: dict[str, Any], msg: dict[str, Any]) -> None:
        """A user entry: the prompt (a user message) or tool results (tool messages)."""
        history = self.history.setdefault(_chain(entry), [])
        content = msg.get("content")
        if isinstance(content, str):
            history.append({"role": "user", "content": content})
            return
        texts = [str(b.get("text") or "") for b in _blocks(content) if b.get("type") == "text"]
        if texts:
            history.append({"role": "user", "content": "\n".join(texts)})
        for block in _blocks(content):
            if block.get("type") == "tool_result":
                self._result(entry, block, history)

    def _result(
        self, entry: dict[str, Any], block: dict[str, Any], history: list[dict[str, Any]]
    ) -> None:
        call_id = opt_id(block.get("tool_use_id"))
        call = self.asked.get(call_id or "", {})
        shown = _result_text(block.get("content"))
        history.append({"role": "tool", "tool_call_id": call_id, "content": shown})
        failed = error(shown, "ToolError") if block.get("is_error") else None
        self.out.append(
            tool_event(
                str(call.get("name") or "unknown_tool"), call_id, call.get("arguments") or {},
                shown, error=failed, node=_chain(entry), timestamp=entry.get("timestamp"),
            )
        )  # fmt: skip


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return []


def _result_text(content: Any) -> Any:
    """A tool_result's content: its text, or the blocks as given when not all text."""
    if isinstance(content, list):
        blocks = [b for b in content if isinstance(b, dict)]
        if blocks and all(b.get("type") == "text" for b in blocks):
            return "\n".join(str(b.get("text") or "") for b in blocks)
    return content


def _prompt(entries: list[dict[str, Any]]) -> str | None:
    """The first user text of the main conversation (the SDK's stream does not echo it)."""
    for entry in entries:
        msg = entry.get("message")
        if entry["type"] != "user" or not isinstance(msg, dict) or _chain(entry):
            continue
        if entry.get("isMeta"):
            continue
        texts = [str(b.get("text")) for b in _blocks(msg.get("content")) if b.get("type") == "text"]
        if texts:
            return "\n".join(texts)
    return None


def _terminal(result: dict[str, Any] | None, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The `result` entry's subtype; a stream without one (a session file) ended unknown."""
    if result is None:
        return {"status": "unknown", "output": last_answer(events)}
    subtype = str(result.get("subtype") or "")
    status = _ENDS.get(subtype, "failed")
    if result.get("is_error") and status == "succeeded":
        status = "failed"
    output = result.get("result")
    return {"status": status, "output": output if output is not None else last_answer(events)}
