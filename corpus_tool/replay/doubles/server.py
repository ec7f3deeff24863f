"""The provider doubles' HTTP server: loopback only, one request at a time, answered through a
case's `Runtime`, so every request is matched as `rt.model` matches it (strict or lenient,
`ignore_request_fields`, divergences with their kinds and the nearest recorded call).

A tool the agent runs itself is seen in its next request: each `{role: tool}` result for a call
the replayed model asked for becomes an `rt.tool` call (the name and arguments as the agent
echoes them), unless the agent already made that call through the runtime. A divergence answers
the client with HTTP 400 and a body naming it; the run then ends as it ends through the Runtime.
Every answer closes its connection, so an SDK's kept-alive connection never holds the server.
"""

from __future__ import annotations

import contextlib
import json
import socket
import socketserver
import threading
from collections.abc import Iterator, Mapping
from datetime import datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import urlsplit

from corpus_tool.model.events import ToolCallEvent
from corpus_tool.model.values import ToolCall, parse_time
from corpus_tool.replay.divergence import DivergenceError
from corpus_tool.replay.doubles import anthropic_messages, openai_chat, openai_responses
from corpus_tool.replay.doubles.asked import (
    BadRequest,
    ProviderAnswer,
    ProviderRequest,
    echoed,
    reported,
)
from corpus_tool.replay.provider import ProviderError
from corpus_tool.replay.runtime import Runtime, ToolError

DUMMY_KEY = "corpus-replay-no-key"
"""The API key the doubles hand the agent: any value passes, none reaches a provider."""
MAX_BODY = 64 << 20
_NO_RETRY = ("x-should-retry: false",)
"""On the doubles' own errors (a divergence, the event limit): an SDK that would retry a 5xx
asks no further, the run has ended."""
_RETRY_NOW = ("retry-after-ms: 1",)
"""On a recorded 429 or 5xx: the SDK retries after 1 ms, not the recorded provider's wait."""


class Case:
    """The case a server answers for: its runtime, and what the run has shown so far."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.asked: dict[str, ToolCall] = {}  # tool calls the replayed model asked for, by id
        self.seen: set[str] = set()  # of those, the ones the agent reported a result for
        self.failure: BaseException | None = None  # the first divergence (or event limit)
        self.requests = 0

    def answer(self, asked: ProviderRequest) -> ProviderAnswer:
        """The recorded answer to `asked` (raises the divergence that stops it)."""
        self.requests += 1
        self._tools(asked.messages)
        rt = self.rt
        response = rt.model(
            asked.messages,
            asked.tools,
            model=asked.model,
            temperature=asked.temperature,
            **asked.params,
        )
        self.asked.update({c.id: c for c in response.tool_calls if c.id})
        event = rt.events[-1]
        source = rt.last_answer
        return ProviderAnswer(
            response,
            (source.model if source else None) or asked.model or "unknown",
            source.usage if source else None,
            event.seq,
            _epoch(event.timestamp),
        )

    def _tools(self, messages: list[Any]) -> None:
        """The agent's own tool calls, as its request reports their results."""
        echo = echoed(messages)
        for call_id in reported(messages):
            if call_id not in self.asked or call_id in self.seen:
                continue
            self.seen.add(call_id)
            if any(isinstance(e, ToolCallEvent) and e.call_id == call_id for e in self.rt.events):
                continue  # the agent called it through the runtime (a patched tool)
            call = echo.get(call_id) or {}
            name = call.get("name") or self.asked[call_id].name
            args = call.get("arguments", self.asked[call_id].arguments)
            with contextlib.suppress(ToolError):  # a recorded error: the agent reported its own
                self.rt.tool(str(name), args if isinstance(args, Mapping) else {})

    def reraise(self) -> None:
        """End the run as the Runtime path would: by the divergence that stopped a request."""
        if self.failure is not None:
            raise self.failure


def _epoch(stamp: str | None) -> int:
    when = parse_time(stamp) if stamp else None
    return int(when.timestamp()) if isinstance(when, datetime) else 0


class _Server(HTTPServer):
    doubles: Doubles

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # no getfqdn: no name lookup
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)


class _Server6(_Server):
    address_family = socket.AF_INET6


class Doubles:
    """The OpenAI and Anthropic doubles on one loopback port, for the case bound to them."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        kind = _Server6 if ":" in host else _Server
        self._server = kind((host, port), _DoublesHandler, bind_and_activate=True)
        self._server.doubles = self
        self.case: Case | None = None
        self.lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def env(self) -> dict[str, str]:
        """What an agent configured from its environment needs: base URLs and dummy keys."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        base = f"http://{host}:{self.port}"
        return {
            "OPENAI_BASE_URL": f"{base}/v1",
            "OPENAI_API_KEY": DUMMY_KEY,
            "ANTHROPIC_BASE_URL": base,
            "ANTHROPIC_API_KEY": DUMMY_KEY,
        }

    def start(self) -> Doubles:
        """Serve on a thread of its own (once)."""
        if self._thread is not None:
            return self
        thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="corpus-doubles", daemon=True
        )
        thread.start()
        self._thread = thread
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    @contextlib.contextmanager
    def serving(self, rt: Runtime) -> Iterator[Case]:
        """Answer for `rt`'s case inside the block."""
        case = Case(rt)
        with self.lock:
            self.case = case
        try:
            yield case
        finally:
            with self.lock:
                self.case = None


APIS: dict[str, Any] = {
    openai_chat.PATH: openai_chat,
    openai_responses.PATH: openai_responses,
    anthropic_messages.PATH: anthropic_messages,
}
"""The APIs served, by path."""


def _whole(api: Any, answer: ProviderAnswer) -> dict[str, Any]:
    """The non-streaming answer of `api`."""
    if api is openai_chat:
        return openai_chat.completion(answer)
    if api is openai_responses:
        return openai_responses.response(answer)
    return anthropic_messages.message(answer)


class _DoublesHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the agent's captured output is its own."""

    def do_POST(self) -> None:
        path = urlsplit(self.path).path.rstrip("/")
        api = APIS.get(path)
        self.close_connection = True
        if api is None:
            self._error(openai_chat, 404, f"corpus replay serves no {path}", "not_found_error")
            return
        try:
            body = self._body()
            asked = api.asked(body)
        except BadRequest as err:
            self._error(api, 400, f"corpus replay: {err}", "invalid_request_error")
            return
        doubles = self.server.doubles
        with doubles.lock:
            case = doubles.case
            if case is None:
                self._error(
                    api, 400, "corpus replay: no case is replaying", "invalid_request_error"
                )
                return
            try:
                answer = case.answer(asked)
            except DivergenceError as err:
                case.failure = case.failure or err
                self._diverged(api, err)
                return
            except ProviderError as err:  # a recorded provider error: answered as the API did
                self._refused(api, err)
                return
            except BaseException as err:  # the event limit, a fence refusal: the run's end
                case.failure = case.failure or err
                self._error(api, 500, f"corpus replay: {err}", "api_error")
                return
        if asked.stream:
            self._stream(api, answer, asked)
        else:
            self._json(200, _whole(api, answer))

    def _body(self) -> Mapping[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise BadRequest(f"the request body is over {MAX_BODY >> 20} MiB")
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            raise BadRequest("the request body is not JSON") from None
        if not isinstance(body, Mapping):
            raise BadRequest("the request body is not a JSON object")
        return body

    def _diverged(self, api: Any, err: DivergenceError) -> None:
        d = err.divergence
        text = f"corpus replay: {d.kind} divergence at step {d.step}: {d.message}"
        self._error(api, 400, text, "invalid_request_error", d.kind)

    def _error(
        self, api: Any, status: int, message: str, kind: str, code: str | None = None
    ) -> None:
        self._json(status, api.error(status, message, kind, code), _NO_RETRY)

    def _refused(self, api: Any, err: ProviderError) -> None:
        """The recorded status and error body; the SDK's own retry rules decide what next
        (a 429 or 5xx retried at once: the recorded wait is not replayed)."""
        status = int(err.status) if isinstance(err.status, int) else 500
        kind = err.type or api.error_type(status)
        body = api.error(status, err.message, kind, err.code, err.param)
        self._json(status, body, _RETRY_NOW)

    def setup(self) -> None:
        super().setup()
        with contextlib.suppress(OSError):  # no Nagle wait between an answer's writes
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _json(self, status: int, doc: Mapping[str, Any], more: tuple[str, ...] = ()) -> None:
        data = json.dumps(doc).encode()
        self.wfile.write(self._head(status, "application/json", len(data), more) + data)

    def _head(
        self, status: int, kind: str, length: int | None = None, more: tuple[str, ...] = ()
    ) -> bytes:
        """The status line and headers, sent with the body in one write."""
        reason = self.responses.get(status, ("",))[0]
        lines = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {kind}", "Connection: close"]
        if length is not None:
            lines.append(f"Content-Length: {length}")
        lines.extend(more)
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    def _stream(self, api: Any, answer: ProviderAnswer, asked: ProviderRequest) -> None:
        out: list[bytes] = [self._head(200, "text/event-stream")]
        if api is openai_chat:
            out += [
                b"data: " + json.dumps(c).encode() + b"\n\n"
                for c in openai_chat.chunks(answer, asked.include_usage)
            ]
            out.append(b"data: [DONE]\n\n")
        else:
            for name, data in api.events(answer):
                out.append(f"event: {name}\ndata: ".encode() + json.dumps(data).encode() + b"\n\n")
        with contextlib.suppress(OSError):  # the client went away
            self.wfile.write(b"".join(out))
            self.wfile.flush()
