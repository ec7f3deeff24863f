"""MCP JSON-RPC logs: `tools/call` requests and their results or errors, matched by `id`.

Read: one JSON-RPC message, a JSON array of them, or a log with one message per line, in
JSON lines or behind a log prefix (`2025-06-13T14:44:29.945Z [info] [shop] Message from
client: {...}`, as Claude Desktop writes `mcp*.log`); a leading ISO timestamp is the message's
time, lines without a message are skipped.

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
from pathlib import Path
from typing import Any

from corpus_tool import files
from corpus_tool.errors import InputError
from corpus_tool.ingest.body import trace_body
from corpus_tool.ingest.build import tool_event
from corpus_tool.ingest.chat import text_of
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.values import obj, result_value
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
    if isinstance(data, dict) and "mcp_log" in data:
        entries = data["mcp_log"]
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
