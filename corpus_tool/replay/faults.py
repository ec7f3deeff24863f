"""Fault variants in replay: the tool double that fails a call's first attempt.

A variant (`corpus vary`) is a case whose trace.yaml carries a `fault:` on one tool_call event
(docs/variants.md). The first call of that tool with those arguments (an idempotency key
aside) is answered by the recording as usual, which checks it is in its place, and then
replaced by the fault: an error raised, or another result. A retry of the same call gets the
recorded answer (the upstream recovered), so the agent's retry path is what is replayed. For
`duplicate` the first attempt executed before it timed out: a retry with another idempotency
key executes once more, and its side effects are added to the trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

from corpus_tool.model.events import ModelRequest, ToolCallEvent
from corpus_tool.model.field_diff import same
from corpus_tool.model.trace import Trace
from corpus_tool.model.values import ErrorInfo, JSONObject
from corpus_tool.replay.matching import RecordedCall
from corpus_tool.replay.requests import RequestNote
from corpus_tool.replay.runtime import ModelAnswer, ToolAnswer

FAULT = "fault"
"""The `origin` of the tool call event a fault answered."""
KEY_ARGUMENTS = ("idempotency_key", "idempotencyKey")


class AnswerSource(Protocol):
    """What replay asks of a source (strict, lenient, live)."""

    def model(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer: ...

    def tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer: ...

    def unused(self) -> list[RecordedCall]: ...

    def notes(self) -> tuple[RequestNote, ...]: ...


@dataclass(frozen=True)
class _Hit:
    """A faulted call's first attempt: the recorded answer it stood in for, and its key."""

    answer: ToolAnswer
    key: str | None


class FaultedSource:
    """Answers through `inner`, but fails the first attempt of each faulted recorded call."""

    def __init__(self, inner: AnswerSource, faulted: tuple[ToolCallEvent, ...]):
        self._inner = inner
        self._faulted = faulted
        self._hits: dict[int, _Hit] = {}

    def model(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        return self._inner.model(request, model, step)

    def tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer:
        for index, event in enumerate(self._faulted):
            if event.tool != name or not same_call(dict(event.arguments), arguments):
                continue
            hit = self._hits.get(index)
            if hit is None:  # the first attempt: the recording checks and answers it
                answer = self._inner.tool(name, arguments, step)
                self._hits[index] = _Hit(answer, key_of(arguments))
                return failed(event.fault or {}, answer)
            return retried(event.fault or {}, hit, arguments)
        return self._inner.tool(name, arguments, step)

    def unused(self) -> list[RecordedCall]:
        return self._inner.unused()

    def notes(self) -> tuple[RequestNote, ...]:
        return self._inner.notes()


def with_faults(source: AnswerSource, trace: Trace) -> AnswerSource:
    """`source` as it is, or wrapped when the trace carries faults (a variant)."""
    faulted = tuple(e for e in trace.tool_calls if e.fault is not None)
    return FaultedSource(source, faulted) if faulted else source


def same_call(recorded: dict[str, Any], arguments: dict[str, Any]) -> bool:
    """The same call, whatever idempotency key each carries (a retry may carry a new one)."""
    return same(_keyless(recorded), _keyless(arguments))


def key_of(arguments: dict[str, Any]) -> str | None:
    """The idempotency key an argument carries, if any."""
    for name in KEY_ARGUMENTS:
        if isinstance(arguments.get(name), str):
            return str(arguments[name])
    return None


def failed(fault: JSONObject, answer: ToolAnswer) -> ToolAnswer:
    """What the first attempt gets: the fault's error, else its result."""
    error = fault.get("error")
    return replace(
        answer,
        result=None if error is not None else fault.get("result"),
        error=None if error is None else ErrorInfo.parse(error),
        origin=FAULT,
    )


def retried(fault: JSONObject, hit: _Hit, arguments: dict[str, Any]) -> ToolAnswer:
    """A retry: the recorded answer, with its own key; a second execution's side effects when
    a `duplicate` is retried under another key (or none)."""
    key = key_of(arguments)
    if key is None and hit.key is None:
        key = hit.answer.idempotency_key
    again = fault.get("kind") == "duplicate" and (key is None or key != hit.key)
    effects = tuple(e for e in fault.get("effects") or () if isinstance(e, dict)) if again else ()
    return replace(hit.answer, idempotency_key=key, effects=effects)


def _keyless(arguments: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in arguments.items() if k not in KEY_ARGUMENTS}
