"""A replay MCP server: JSON-RPC answered from a case's recording (docs/replay.md, "MCP tools").

`initialize` and `ping` answer as any server does, `tools/list` with the recorded tool
definitions (`mcpServers` of the native incident), `tools/call` through the case's Runtime, so a
call is matched exactly as `rt.tool` matches it: a recorded result is the call's result (text
content, and `structuredContent` for an object), a recorded tool error an `isError: true`
result, and a divergence a JSON-RPC error whose message names it. A divergence stops the case as
it does through the Runtime: later calls get the same error, and the agent's run ends with it.
The transports (`mcp_serve.py`) carry these messages; this module never touches a socket.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from corpus_tool.model.mcp import McpServer
from corpus_tool.replay.divergence import DivergenceError
from corpus_tool.replay.runtime import ToolError

PROTOCOL_VERSION = "2025-06-18"
"""Answered when the client asks for no version (else its own version is echoed)."""
DIVERGED = -32001
"""The JSON-RPC error code of a replay divergence (a server-defined code)."""
_METHOD_NOT_FOUND, _INVALID = -32601, -32602

ToolCaller = Callable[[str, dict[str, Any]], Any]
"""`rt.tool`: the result, or raises ToolError / DivergenceError."""


class McpRpcError(Exception):
    """A JSON-RPC error answer."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class McpReplay:
    """One recorded MCP server, answering from the case's recording."""

    def __init__(self, server: McpServer, call: ToolCaller, lock: threading.Lock) -> None:
        self.server = server
        self._call = call
        self._lock = lock  # shared with the case's other doubles: one call at a time
        self.stop: BaseException | None = None
        """What stopped the case (a divergence), re-raised in the agent when its run ends."""

    def answer(self, message: Any) -> dict[str, Any] | None:
        """The response to one JSON-RPC message; None for a notification or a response."""
        if not isinstance(message, Mapping) or "method" not in message:
            return None
        if "id" not in message:
            return None  # notifications/initialized, notifications/cancelled, ...
        ident, method = message["id"], message["method"]
        params = message.get("params")
        try:
            result = self._dispatch(str(method), params if isinstance(params, Mapping) else {})
        except McpRpcError as err:
            error: dict[str, Any] = {"code": err.code, "message": err.message}
            if err.data is not None:
                error["data"] = err.data
            return {"jsonrpc": "2.0", "id": ident, "error": error}
        return {"jsonrpc": "2.0", "id": ident, "result": result}

    def _dispatch(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return self._initialize(params)
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [dict(tool) for tool in self.server.tools]}
        if method == "tools/call":
            return self._tool(params)
        raise McpRpcError(
            _METHOD_NOT_FOUND,
            f"the replay MCP server {self.server.name!r} answers initialize, ping, tools/list "
            f"and tools/call, not {method}",
        )

    def _initialize(self, params: Mapping[str, Any]) -> dict[str, Any]:
        version = params.get("protocolVersion")
        return {
            "protocolVersion": version if isinstance(version, str) else PROTOCOL_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": self.server.name, "version": "corpus-tool replay"},
        }

    def _tool(self, params: Mapping[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, Mapping):
            raise McpRpcError(_INVALID, "tools/call needs a tool `name` and object `arguments`")
        with self._lock:
            if self.stop is not None:
                raise _stopped(self.stop)
            try:
                value = self._call(name, dict(arguments))
            except ToolError as err:
                return {"content": [_text(err.message or err.type)], "isError": True}
            except DivergenceError as err:
                self.stop = err
                raise _stopped(err) from None
            except BaseException as err:  # the event limit, a refused operation: stop too
                self.stop = err
                raise _stopped(err) from None
        return tool_result(value)


def tool_result(value: Any) -> dict[str, Any]:
    """A recorded result as MCP `CallToolResult`: an MCP result as recorded stays one; text is
    text content; any other value is its JSON text, and `structuredContent` for an object."""
    if isinstance(value, Mapping) and isinstance(value.get("content"), list):
        return {**value, "isError": bool(value.get("isError", False))}
    if isinstance(value, str):
        return {"content": [_text(value)], "isError": False}
    result: dict[str, Any] = {
        "content": [_text(json.dumps(value, ensure_ascii=False))],
        "isError": False,
    }
    if isinstance(value, Mapping):
        result["structuredContent"] = dict(value)
    return result


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _stopped(err: BaseException) -> McpRpcError:
    if isinstance(err, DivergenceError):
        found = err.divergence
        return McpRpcError(DIVERGED, f"replay divergence: {found.lines()[0]}", found.as_dict())
    return McpRpcError(DIVERGED, f"replay stopped: {type(err).__name__}: {err}")
