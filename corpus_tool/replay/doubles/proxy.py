"""The recording proxy of `corpus record`: the agent's provider calls passed through, kept.

Serves on the loopback; `OPENAI_BASE_URL` points at `/openai` and `ANTHROPIC_BASE_URL` at
`/anthropic` of it. Each request goes on to the real upstream (the user's own base URL, else
the provider's), headers and all (the API key passes through and is never kept), and the answer
comes back as the upstream sent it, an event stream chunk by chunk. What the proxy keeps of a
JSON POST is a `RecordedExchange`: the request body, the status, and the answer (its JSON
body, or the `data:` events of a stream); `ingest/exchanges.py` turns those into a native
incident.
"""

from __future__ import annotations

import contextlib
import json
import socketserver
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from corpus_tool.model.exchange import RecordedExchange

DEFAULT_UPSTREAMS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
"""Where requests go when the user's environment names no base URL of its own."""
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
UPSTREAM_TIMEOUT_S = 600.0
_HOP = {"host", "content-length", "connection", "accept-encoding", "transfer-encoding"}


class RecordingProxy:
    """The proxy, on its own threads for as long as the `with` block runs."""

    def __init__(self, upstreams: Mapping[str, str]) -> None:
        self.upstreams = {api: url.rstrip("/") for api, url in upstreams.items()}
        self.exchanges: list[RecordedExchange] = []
        self.lock = threading.Lock()
        handler = type("Handler", (_ProxyHandler,), {"proxy": self})
        self._server = _ProxyServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="corpus-record-proxy"
        )

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def base_urls(self) -> dict[str, str]:
        """The environment the agent runs with: each provider's base URL, this proxy."""
        port = int(self._server.server_address[1])
        return {env: f"http://127.0.0.1:{port}/{api}" for api, env in BASE_URL_ENV.items()}

    def keep(self, exchange: RecordedExchange) -> None:
        with self.lock:
            self.exchanges.append(exchange)


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # no reverse look-up of the loopback
        self.server_name, self.server_port = "127.0.0.1", int(self.server_address[1])


class _ProxyHandler(BaseHTTPRequestHandler):
    proxy: RecordingProxy
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self._forward("POST")

    def do_GET(self) -> None:
        self._forward("GET")

    def _forward(self, method: str) -> None:
        api, _, rest = self.path.lstrip("/").partition("/")
        upstream = self.proxy.upstreams.get(api)
        if upstream is None:
            self._plain(404, f"corpus record proxies /openai/... and /anthropic/..., not {api}")
            return
        size = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(size) if size else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
        request = urllib.request.Request(f"{upstream}/{rest}", body, headers, method=method)
        started, clock = time.time(), time.perf_counter()
        try:
            answer = urllib.request.urlopen(request, timeout=UPSTREAM_TIMEOUT_S)
        except urllib.error.HTTPError as err:
            answer = err
        except OSError as err:
            self._plain(502, f"corpus record: the upstream {upstream} did not answer: {err}")
            return
        with answer:
            status = answer.status if hasattr(answer, "status") else answer.code
            streamed = "text/event-stream" in (answer.headers.get("Content-Type") or "")
            self.send_response(status)
            for key, value in answer.headers.items():
                if key.lower() not in _HOP:
                    self.send_header(key, value)
            if streamed:
                events = self._relay_stream(answer)
                kept: Any = None
            else:
                data = answer.read()
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                kept, events = _json(data), []
        if method == "POST":
            self.proxy.keep(
                RecordedExchange(
                    api,
                    "/" + rest.split("?", 1)[0],
                    _json(body or b""),
                    status,
                    kept,
                    tuple(events),
                    started,
                    round((time.perf_counter() - clock) * 1000, 1),
                )
            )

    def _relay_stream(self, answer: Any) -> list[Any]:
        """Pass the event stream on line by line (the connection's close ends it)."""
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()
        events: list[Any] = []
        for line in iter(answer.readline, b""):
            with contextlib.suppress(OSError):
                self.wfile.write(line)
                self.wfile.flush()
            text = line.decode("utf-8", "replace").strip()
            if text.startswith("data:"):
                payload = text[5:].strip()
                if payload and payload != "[DONE]":
                    events.append(_json(payload.encode()))
        return events

    def _plain(self, status: int, text: str) -> None:
        data = json.dumps({"error": {"message": text, "type": "corpus_record"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the agent's own output is what the terminal shows."""


def _json(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None
