"""The replay MCP server's transports, each running for one case on its own threads.

stdio: the agent starts the command in `CORPUS_MCP_<NAME>` (`mcp_stdio.py`, a relay with no
corpus-tool import) and talks MCP's newline-delimited JSON-RPC to it; the relay forwards each
line over a Unix socket to the `McpUnixEndpoint` here, in the worker, where the case's Runtime
answers it. http: MCP's streamable HTTP transport, `POST /mcp` answered with one JSON body (the
transport allows a JSON answer instead of an event stream), on the loopback.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import socketserver
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from corpus_tool.replay.doubles.mcp import McpReplay

RELAY = Path(__file__).with_name("mcp_stdio.py")
MAX_LINE = 64 * 1024 * 1024
"""The longest JSON-RPC message a transport reads (a recorded result is bounded by the trace)."""


class McpUnixEndpoint:
    """The worker's end of the stdio relay: a Unix socket, a thread per connection."""

    def __init__(self, replay: McpReplay) -> None:
        self.replay = replay
        self._dir = tempfile.mkdtemp(prefix="corpus-mcp-")
        self.path = os.path.join(self._dir, "mcp.sock")
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.path)
        self._listener.listen()
        self._listener.settimeout(0.05)
        self._open: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._closing = threading.Event()
        self._accepter = threading.Thread(target=self._accept, name="corpus-mcp-accept")
        self._accepter.start()

    def address(self) -> str:
        """What `CORPUS_MCP_<NAME>` holds: the relay's command line, as a JSON list."""
        return json.dumps([sys.executable, "-I", str(RELAY), self.path])

    def _accept(self) -> None:
        while not self._closing.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            self._open.append(conn)
            thread = threading.Thread(target=self._serve, args=(conn,), name="corpus-mcp-conn")
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn.makefile("rb") as lines:
            for line in iter(lambda: lines.readline(MAX_LINE), b""):
                reply = _answer_line(self.replay, line)
                if reply is not None:
                    conn.sendall(reply)

    def close(self) -> None:
        """Stop accepting, hang up on every relay, join the threads, remove the socket."""
        self._closing.set()
        self._accepter.join()
        self._listener.close()
        for conn in self._open:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join()
        for conn in self._open:
            conn.close()
        shutil.rmtree(self._dir, ignore_errors=True)


def _answer_line(replay: McpReplay, line: bytes) -> bytes | None:
    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except ValueError:
        reply: Any = _parse_error()
    else:
        reply = _answered(replay, message)
    return None if reply is None else (json.dumps(reply, ensure_ascii=False) + "\n").encode()


def _answered(replay: McpReplay, message: Any) -> Any:
    """One message's answer, or a batch's (None when nothing in it wants one)."""
    if isinstance(message, list):
        replies = [r for r in (replay.answer(m) for m in message) if r is not None]
        return replies or None
    return replay.answer(message)


def _parse_error() -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "not JSON"}}


class McpHttpEndpoint:
    """Streamable HTTP on the loopback: `POST /mcp` with a JSON-RPC message, a JSON answer."""

    def __init__(self, replay: McpReplay) -> None:
        self.replay = replay
        handler = type("Handler", (_McpHandler,), {"replay": replay})
        self._server = _McpHttpServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="corpus-mcp-http"
        )
        self._thread.start()

    def port(self) -> int:
        return int(self._server.server_address[1])

    def address(self) -> str:
        """What `CORPUS_MCP_<NAME>` holds: the server's URL."""
        return f"http://127.0.0.1:{self.port()}/mcp"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()  # joins the request threads
        self._thread.join()


class _McpHttpServer(ThreadingHTTPServer):
    def server_bind(self) -> None:
        """Bind without `getfqdn` (a reverse look-up the replay's network guard refuses)."""
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", int(self.server_address[1])


class _McpHandler(BaseHTTPRequestHandler):
    replay: McpReplay
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        try:
            message = json.loads(self.rfile.read(min(size, MAX_LINE)))
        except ValueError:
            self._send(400, _parse_error())
            return
        reply = _answered(self.replay, message)
        if reply is None:
            self._send(202, None)
        else:
            self._send(200, reply)

    def do_GET(self) -> None:
        self._send(405, None)

    def do_DELETE(self) -> None:
        self._send(200, None)

    def _send(self, status: int, body: Any) -> None:
        data = b"" if body is None else json.dumps(body, ensure_ascii=False).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")  # no idle keep-alive thread outlives the case
        self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the case's captured output is the agent's, not the server's."""
