"""The live model's round trip: a worker's `rt.model` asks the grading process over the pipe.

The live model runs in the grading process, never in the worker: the worker keeps no network
and never sees the provider's key. A worker sends `{"kind": "model", "run", "step", "request"}`
(JSON, like every reply: untrusted, checked by `request_of`) and waits for the answer: a frame
whose run number is 0 (no run has that number), holding a pickled `ModelReply` (trusted, from
the parent). A case the parent queued meanwhile is kept for later (`Pending`).
"""

from __future__ import annotations

import pickle
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from corpus_tool.model.events import ModelRequest
from corpus_tool.model.values import ModelResponse
from corpus_tool.replay.provider import ProviderError
from corpus_tool.replay.runtime import ModelAnswer
from corpus_tool.replay.workers import wire

MODEL = "model"
ANSWER_RUN = 0


@dataclass(frozen=True)
class ModelReply:
    """The grading process's answer to one model request."""

    response: ModelResponse | None
    model: str | None = None
    duration_ms: float | None = None
    status: int | str | None = None  # set with `error` when the provider failed
    error: str | None = None


def encode_answer(reply: ModelReply) -> bytes:
    """The frame payload the parent sends back."""
    return wire.HEADER.pack(ANSWER_RUN) + pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)


def is_answer(payload: bytes) -> bool:
    """Whether a frame the worker read is a model answer (else: a case queued meanwhile)."""
    run: int = wire.HEADER.unpack(payload[: wire.HEADER.size])[0]
    return run == ANSWER_RUN


def request_of(message: dict[str, Any]) -> dict[str, Any]:
    """In the parent: the request body a worker sent, checked (a WireError when it does not
    fit): `messages` a list, `tools` a list or absent, `model` a string or absent."""
    body = message.get("request")
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise wire.WireError("a model request without a list of messages")
    if body.get("tools") is not None and not isinstance(body["tools"], list):
        raise wire.WireError("a model request whose tools are not a list")
    if body.get("model") is not None and not isinstance(body["model"], str):
        raise wire.WireError("a model request whose model is not a string")
    if body.get("params") is not None and not isinstance(body["params"], dict):
        raise wire.WireError("a model request whose params are not an object")
    return body


class Pipe(Protocol):
    """The worker's side of the pipes (worker.Channel)."""

    pending: deque[bytes]

    def send(self, message: dict[str, Any]) -> None: ...

    def read(self) -> bytes: ...


class PipeModel:
    """The worker's live model: each request goes to the grading process and back."""

    def __init__(self, pipe: Pipe, run: int) -> None:
        self._pipe = pipe
        self._run = run

    def __call__(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        body = request.to_doc()
        if model is not None:
            body["model"] = model
        self._pipe.send({"kind": MODEL, "run": self._run, "step": step, "request": body})
        reply = self._answer()
        if reply.response is None:
            raise ProviderError(reply.status, reply.error or "the live model gave no answer")
        return ModelAnswer(reply.response, reply.model or model, reply.duration_ms, "live")

    def _answer(self) -> ModelReply:
        while True:
            payload = self._pipe.read()
            if not is_answer(payload):
                self._pipe.pending.append(payload)
                continue
            reply = pickle.loads(payload[wire.HEADER.size :])
            if not isinstance(reply, ModelReply):
                raise wire.WireError("the parent's model answer is not a ModelReply")
            return reply


Answer = Callable[[int, int, dict[str, Any]], ModelReply]
"""The parent's side: (job index, attempt, request body) -> the reply for the worker."""
