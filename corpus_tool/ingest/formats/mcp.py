"""MCP JSON-RPC logs: `tools/call` requests and their results or errors, matched by `id`.

Read: one JSON-RPC message, a JSON array of them, or a log with one message per line, in
JSON lines or behind a log prefix (`2025-06-13T14:44:29.945Z [info] [shop] Message from
client: {...}`, as Claude Desktop writes `mcp*.log`); a leading ISO timestamp is the message's
time, lines without a message are skipped. Record/replay cassettes are unwrapped into the same
messages with their recorded times: `{interactions: [{timestamp, request, response,
notifications, latency_ms}]}` (at the top or under `session`, with `initialize_request` /
`initialize_response`, as agent-vcr writes them) and `{recorded_at, messages: [{t_offset_ms,
payload}]}` (mcp-cassette).

A log holds what the tools did, not what the model asked: the run is a tools-only trace.
Each `tools/call` request and the response with its `id` become a tool_call (call id
`mcp-<id>`): `structuredContent` when the server sent one, else the text of a single text
part (JSON text decoded), else the content list; `isError: true` is the tool's error, a
JSON-RPC `error` one named by its code. Such a trace is incomplete (no model call asked for
these tools): `--allow-incomplete` keeps it as known_unknown, and `corpus add MODEL_TRACE
--tools-log LOG` pairs it with the model's trace instead (see `ingest.pairing`).
`initialize` (or 2026-style `_meta` clientInfo) names the client: the agent; `tools/list`
results are the tools offered.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.body import trace_body
from corpus_tool.ingest.build import tool_event
from corpus_tool.ingest.chat import text_of
from corpus_tool.ingest.coerce import obj, result_value
from corpus_tool.ingest.imported import Imported
from corpus_tool.io import files
from corpus_tool.model.values import ABSENT, parse_time

_TIME = re.compile(r"^\W*(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)")
_CODES = {
    -32700: "ParseError",
    -32600: "InvalidRequest",
    -32601: "MethodNotFound",
    -32602: "InvalidParams",
    -32603: "InternalError",
}
_CLIENT_META = "io.modelcontextprotocol/clientInfo"


class McpImporter:
    """MCP JSON-RPC traffic as a tools-only trace."""

    name = "mcp"

    def sniff_bytes(self, raw: bytes, path: Path) -> bool:
        """JSON lines or log lines of JSON-RPC messages (`ingest.parse` asks only about bytes
        that are not one JSON document: one document is parsed once and sniffed as data)."""
        return b'"jsonrpc"' in raw[:65536]

    def read(self, raw: bytes, path: Path) -> Any:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text; is this a binary file?", path) from None
        try:
            return files.parse_json(raw, path)
        except InputError:
            return {"mcp_log": _lines(text, path)}

    def sniff(self, data: Any, path: Path) -> bool:
        if isinstance(data, dict) and "mcp_log" in data:
            return True
        items = data if isinstance(data, list) else [data]
        head = [m for m in items[:3] if isinstance(m, dict)]
        if _cassette(data) is not None:
            return True
        return bool(head) and (all(_is_jsonrpc(m) for m in head) or _bare_part(data) is not None)

    def load(self, data: Any, path: Path) -> list[Imported]:
        bare = _bare_part(data)
        if bare is not None:
            raise InputError(bare, path)
        log = _entries(data)
        if not any(_method(e) == "tools/call" for e in log):
            raise InputError(_no_calls(log), path)
        events, facts = _calls(log)
        times = [e["time"] for e in log if e["time"]]
        body = trace_body(
            events,
            started_at=times[0] if times else None,
            agent={"name": facts.get("client_name"), "version": facts.get("client_version")},
            user_message=None,
            terminal={"status": "unknown", "output": None},
            extra={
                "server": facts.get("server"),
                "tools_offered": facts.get("tools"),
                "unanswered": facts.get("unanswered"),
                "cassette": _cassette_facts(data),
            },
            offered=facts.get("tools"),
        )
        return [Imported(self.name, body, label=path.stem)]


IMPORTER = McpImporter()


def _is_jsonrpc(value: dict[str, Any]) -> bool:
    return value.get("jsonrpc") == "2.0" and any(k in value for k in ("method", "result", "error"))


def _bare_part(data: Any) -> str | None:
    """A piece of an MCP exchange without its JSON-RPC envelope: why it cannot be a trace."""
    if not isinstance(data, dict) or "jsonrpc" in data:
        return None
    if isinstance(data.get("content"), list) and "isError" in data:
        return (
            "an MCP CallToolResult without its JSON-RPC envelope: it names no request id "
            "and no tool; log the `tools/call` request and its response"
        )
    if set(data) <= {"code", "message", "data"} and isinstance(data.get("code"), int):
        return (
            "a JSON-RPC error object without its JSON-RPC envelope: it names no request id and "
            "no tool; log the `tools/call` request and its response"
        )
    return None


def _lines(text: str, path: Path) -> list[dict[str, Any]]:
    """Every JSON object in a log, one per line, with the line's leading time."""
    decoder = json.JSONDecoder()
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        start = line.find("{")
        if start < 0:
            continue
        try:
            message, _ = decoder.raw_decode(line, start)
        except (ValueError, RecursionError):
            continue  # a log line that is no message (a server's own log output)
        found = _TIME.match(line[:start])
        message = files.check_depth(message, path)
        out.append({"message": message, "time": found.group(1) if found else None, "line": number})
    if not out:
        raise InputError("no JSON-RPC message in this log", path)
    return out


def _entries(data: Any) -> list[dict[str, Any]]:
    """Messages with their times: from a log, or a JSON document (no times)."""
    cassette = _cassette(data)
    if isinstance(data, dict) and "mcp_log" in data:
        entries = data["mcp_log"]
    elif cassette is not None:
        entries = cassette
    else:
        items = data if isinstance(data, list) else [data]
        entries = [{"message": m, "time": None, "line": None} for m in items]
    return [e for e in entries if isinstance(e["message"], dict)]


def _method(entry: dict[str, Any]) -> Any:
    return entry["message"].get("method")


def _no_calls(log: list[dict[str, Any]]) -> str:
    answers = [str(e["message"]["id"]) for e in log if "id" in e["message"] and not _method(e)]
    if answers:
        return (
            f"MCP response(s) {', '.join(answers[:5])} without the `tools/call` request: a "
            "response names no tool; log both directions of the exchange"
        )
    return "no `tools/call` request in this MCP log; nothing a tool did to replay"


def _calls(log: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """tool_call events in request order, and what the log says about client and server.

    One pass: a response answers the open request of its id (a restarted client reuses ids).
    """
    facts: dict[str, Any] = {"unanswered": []}
    opened: dict[str, str] = {}
    calls: dict[str, list[Any]] = {}
    pairs: list[list[Any]] = []  # [request entry, response entry, cancel reason]
    for entry in log:
        message, method = entry["message"], _method(entry)
        if method == "notifications/cancelled":
            params = obj(message.get("params"))
            slot = calls.get(str(params.get("requestId")))
            if slot is not None:
                slot[2] = str(params.get("reason") or "cancelled")
        elif method is not None:
            _client(facts, message)
            if "id" in message:
                opened[_id(message)] = str(method)
                if method == "tools/call":
                    calls[_id(message)] = [entry, None, None]
                    pairs.append(calls[_id(message)])
        elif "id" in message:
            asked = opened.pop(_id(message), None)
            if asked == "tools/call":
                calls.pop(_id(message))[1] = entry
            elif asked is not None:
                _server(facts, asked, obj(message.get("result")))
            else:
                facts["unanswered"].append(message)
    return [_call(*pair) for pair in pairs], facts


def _id(message: dict[str, Any]) -> str:
    """JSON-RPC ids are strings or numbers; `1` and `"1"` are one id in a log."""
    return str(message.get("id"))


def _client(facts: dict[str, Any], message: dict[str, Any]) -> None:
    """The client (the agent's host): `initialize`'s clientInfo, or 2026-style `_meta`."""
    params = obj(message.get("params"))
    client = obj(params.get("clientInfo")) or obj(obj(params.get("_meta")).get(_CLIENT_META))
    if client and "client_name" not in facts:
        facts.update(client_name=client.get("name"), client_version=client.get("version"))


def _server(facts: dict[str, Any], method: str, result: dict[str, Any]) -> None:
    """The server's name, and the tools it offered."""
    if method in ("initialize", "server/discover") and result.get("serverInfo"):
        facts["server"] = result["serverInfo"]
    if method == "tools/list" and isinstance(result.get("tools"), list):
        facts["tools"] = result["tools"]


def _call(
    entry: dict[str, Any], answer: dict[str, Any] | None, cancelled: str | None
) -> dict[str, Any]:
    message = entry["message"]
    params = obj(message.get("params"))
    result, err, more = _outcome(answer, cancelled)
    return tool_event(
        str(params.get("name") or "unknown_tool"),
        f"mcp-{_id(message)}",
        obj(params.get("arguments")),
        result,
        error=err,
        timestamp=entry["time"],
        duration_ms=_took(entry, answer),
        extra={"jsonrpc_id": message.get("id"), **more},
    )


def _outcome(
    answer: dict[str, Any] | None, cancelled: str | None
) -> tuple[Any, dict[str, str] | None, dict[str, Any]]:
    """(result, error, extra) of a call from its response."""
    if answer is None:
        if cancelled is not None:
            return ABSENT, {"type": "Cancelled", "message": cancelled}, {}
        return ABSENT, None, {}
    message = answer["message"]
    if "error" in message:
        failure = obj(message["error"])
        code = failure.get("code")
        kind = _CODES.get(code, "JSONRPCError") if isinstance(code, int) else "JSONRPCError"
        return ABSENT, {"type": kind, "message": str(failure.get("message") or "")}, {"code": code}
    result = obj(message.get("result"))
    content = result.get("content")
    text = text_of(content) if isinstance(content, list) and len(content) == 1 else None
    if result.get("isError"):
        return ABSENT, {"type": "ToolError", "message": text or json.dumps(content)}, {}
    if "structuredContent" in result:
        return result["structuredContent"], None, {"content": content}
    return (result_value(text) if text is not None else content), None, {}


def _took(entry: dict[str, Any], answer: dict[str, Any] | None) -> float | None:
    start, end = parse_time(entry["time"]), parse_time((answer or {}).get("time"))
    if start is None or end is None or (start.tzinfo is None) != (end.tzinfo is None):
        return None
    return round((end - start).total_seconds() * 1000, 3)


def _cassette(data: Any) -> list[dict[str, Any]] | None:
    """A record/replay cassette's messages, in order, with their recorded times; else None."""
    if not isinstance(data, dict):
        return None
    session = data["session"] if isinstance(data.get("session"), dict) else data
    if isinstance(session.get("interactions"), list):
        return _interactions(session, _recorded_at(data))
    messages = data.get("messages")
    if (
        isinstance(messages, list)
        and messages
        and all(isinstance(m, dict) and isinstance(m.get("payload"), dict) for m in messages)
    ):
        start = _recorded_at(data)
        return [_entry(m["payload"], _shift(start, m.get("t_offset_ms"))) for m in messages]
    return None


def _recorded_at(data: dict[str, Any]) -> str | None:
    value = data.get("recorded_at", obj(data.get("metadata")).get("recorded_at"))
    return value if isinstance(value, str) and parse_time(value) is not None else None


def _interactions(session: dict[str, Any], recorded_at: str | None) -> list[dict[str, Any]]:
    """agent-vcr: the initialize exchange, then each interaction's request, its notifications
    and its response (at the request's time plus the recorded latency)."""
    out = [
        _entry(session[key], recorded_at)
        for key in ("initialize_request", "initialize_response")
        if isinstance(session.get(key), dict)
    ]
    for item in session["interactions"]:
        if not isinstance(item, dict):
            continue
        when = item.get("timestamp") if isinstance(item.get("timestamp"), str) else None
        if isinstance(item.get("request"), dict):
            out.append(_entry(item["request"], when))
        out += [_entry(n, when) for n in item.get("notifications") or [] if isinstance(n, dict)]
        if isinstance(item.get("response"), dict):
            out.append(_entry(item["response"], _shift(when, item.get("latency_ms"))))
    return out


def _entry(message: dict[str, Any], when: str | None) -> dict[str, Any]:
    return {"message": message, "time": when, "line": None}


def _shift(when: str | None, offset_ms: Any) -> str | None:
    """A recorded time moved by a recorded offset (ms), in the time's own form."""
    start = parse_time(when)
    if start is None or not isinstance(offset_ms, (int, float)) or isinstance(offset_ms, bool):
        return when
    moved = start + timedelta(milliseconds=offset_ms)
    text = moved.isoformat()
    return text.replace("+00:00", "Z") if str(when).endswith("Z") else text


def _cassette_facts(data: Any) -> dict[str, Any] | None:
    """What a cassette says about its recording (format version, transport, tags)."""
    if not isinstance(data, dict) or _cassette(data) is None:
        return None
    keys = ("format_version", "metadata", "transport", "server_url", "protocol_version")
    kept = {k: data[k] for k in keys if data.get(k) is not None}
    return kept or None
