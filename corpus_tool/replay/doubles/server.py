"""The provider doubles' HTTP server: loopback only, one request at a time, answered through a
case's `Runtime`, so every request is matched as `rt.model` matches it (strict or lenient,
`ignore_request_fields`, divergences with their kinds and the nearest recorded call).

A tool the agent runs itself is seen in its next request: each `{role: tool}` result for a call
the replayed model asked for becomes an `rt.tool` call (the name and arguments as the agent
echoes them), unless the agent already made that call through the runtime. A divergence answers
the client with HTTP 400 and a body naming it; the run then ends as it ends through the Runtime.
Connections are HTTP/1.1 kept alive, as an SDK's client keeps them: one thread answers them all,
and an event stream is sent whole, its length known, so it needs no close to end.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import threading
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

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
from corpus_tool.replay.doubles.connection import Answer, Connection, Refusal
from corpus_tool.replay.provider import ProviderError
from corpus_tool.replay.runtime import Runtime, ToolError

DUMMY_KEY = "corpus-replay-no-key"
"""The API key the doubles hand the agent: any value passes, none reaches a provider."""
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


class Doubles:
    """The OpenAI and Anthropic doubles on one loopback port, for the case bound to them.

    One thread serves every connection (a selector over the listening socket and each client's
    socket), so a connection an SDK keeps alive between requests, and between cases, costs
    nothing while idle and starts no thread of its own.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((host, port))
            listener.listen(64)
        except OSError:
            listener.close()
            raise
        listener.setblocking(False)
        self._listener = listener
        self._wake_r, self._wake_w = socket.socketpair()
        self._connections: set[Connection] = set()
        self.case: Case | None = None
        self.lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._listener.getsockname()[0])

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

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
        thread = threading.Thread(target=self._serve, name="corpus-doubles", daemon=True)
        thread.start()
        self._thread = thread
        return self

    def close(self) -> None:
        if self._thread is not None:
            with contextlib.suppress(OSError):
                self._wake_w.send(b"x")
            self._thread.join()
            self._thread = None
        for connection in list(self._connections):
            connection.close()
        for sock in (self._listener, self._wake_r, self._wake_w):
            sock.close()

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

    def _serve(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._listener, selectors.EVENT_READ, None)
            selector.register(self._wake_r, selectors.EVENT_READ, self)
            while True:
                for key, events in selector.select():
                    if key.data is self:
                        return
                    if key.data is None:
                        self._accept(selector)
                    elif not key.data.ready(events):
                        selector.unregister(key.fileobj)
                        key.data.close()
                        self._connections.discard(key.data)
                    elif key.data.events() != key.events:
                        selector.modify(key.fileobj, key.data.events(), key.data)

    def _respond(self, method: str, path: str, body: bytes) -> Answer:
        return _guarded(self, method, path, body)

    def _accept(self, selector: selectors.BaseSelector) -> None:
        try:
            sock, _ = self._listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            return  # out of descriptors, a reset before accept: the client retries or fails
        sock.setblocking(False)
        with contextlib.suppress(OSError):  # no Nagle wait between an answer's writes
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection = Connection(sock, self._respond, _unreadable)
        self._connections.add(connection)
        selector.register(sock, selectors.EVENT_READ, connection)


APIS: dict[str, Any] = {
    openai_chat.PATH: openai_chat,
    openai_responses.PATH: openai_responses,
    anthropic_messages.PATH: anthropic_messages,
}
"""The APIs served, by path."""


def _unreadable(refusal: Refusal) -> Answer:
    """A request the transport could not read, answered in the OpenAI error body."""
    return _answer(refusal.status, openai_chat, refusal.message, "invalid_request_error")


def _whole(api: Any, answer: ProviderAnswer) -> dict[str, Any]:
    """The non-streaming answer of `api`."""
    if api is openai_chat:
        return openai_chat.completion(answer)
    if api is openai_responses:
        return openai_responses.response(answer)
    return anthropic_messages.message(answer)


_JSON, _EVENTS = b"application/json", b"text/event-stream"


def _respond(doubles: Doubles, method: str, path: str, data: bytes) -> Answer:
    """The answer to one request: the recorded one, or the error that stops the run."""
    api = APIS.get(path) if method == "POST" else None
    if api is None:
        return _answer(
            404, openai_chat, f"corpus replay serves no {method} {path}", "not_found_error"
        )
    try:
        asked = api.asked(_body(data))
    except BadRequest as err:
        return _answer(400, api, f"corpus replay: {err}", "invalid_request_error")
    with doubles.lock:
        case = doubles.case
        if case is None:
            return _answer(400, api, "corpus replay: no case is replaying", "invalid_request_error")
        try:
            answer = case.answer(asked)
        except DivergenceError as err:
            case.failure = case.failure or err
            d = err.divergence
            text = f"corpus replay: {d.kind} divergence at step {d.step}: {d.message}"
            return _answer(400, api, text, "invalid_request_error", d.kind)
        except ProviderError as err:  # a recorded provider error: answered as the API did
            return _refused(api, err)
        except BaseException as err:  # the event limit, a fence refusal: the run's end
            case.failure = case.failure or err
            return _answer(500, api, f"corpus replay: {err}", "api_error")
    if asked.stream:
        return 200, _EVENTS, _stream(api, answer, asked), ()
    return 200, _JSON, json.dumps(_whole(api, answer)).encode(), ()


def _guarded(doubles: Doubles, method: str, path: str, data: bytes) -> Answer:
    """`_respond`, whose own defect is this request's 500 and the case's failure: one thread
    serves every connection, and an exception leaving it would leave every later request of
    every agent unanswered until its SDK gave up."""
    try:
        return _respond(doubles, method, path, data)
    except Exception as err:
        with doubles.lock:
            if doubles.case is not None:
                doubles.case.failure = doubles.case.failure or err
        text = f"corpus replay: internal error: {type(err).__name__}: {err}"
        return _answer(500, openai_chat, text, "api_error")


def _body(data: bytes) -> Mapping[str, Any]:
    try:
        body = json.loads(data or b"{}")
    except ValueError:
        raise BadRequest("the request body is not JSON") from None
    if not isinstance(body, Mapping):
        raise BadRequest("the request body is not a JSON object")
    return body


def _answer(status: int, api: Any, message: str, kind: str, code: str | None = None) -> Answer:
    """The doubles' own error, in the API's error body."""
    return status, _JSON, json.dumps(api.error(status, message, kind, code)).encode(), _NO_RETRY


def _refused(api: Any, err: ProviderError) -> Answer:
    """The recorded status and error body; the SDK's own retry rules decide what next
    (a 429 or 5xx retried at once: the recorded wait is not replayed)."""
    status = int(err.status) if isinstance(err.status, int) else 500
    kind = err.type or api.error_type(status)
    body = api.error(status, err.message, kind, err.code, err.param)
    return status, _JSON, json.dumps(body).encode(), _RETRY_NOW


def _stream(api: Any, answer: ProviderAnswer, asked: ProviderRequest) -> bytes:
    """The whole event stream, sent as one body (its length known: the connection stays)."""
    out: list[bytes] = []
    if api is openai_chat:
        out += [
            b"data: " + json.dumps(c).encode() + b"\n\n"
            for c in openai_chat.chunks(answer, asked.include_usage)
        ]
        out.append(b"data: [DONE]\n\n")
    else:
        for name, data in api.events(answer):
            out.append(f"event: {name}\ndata: ".encode() + json.dumps(data).encode() + b"\n\n")
    return b"".join(out)
