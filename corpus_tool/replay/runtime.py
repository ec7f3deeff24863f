"""The Runtime agent code talks to: model, tools, clock, randomness, events.

The runtime owns the trajectory. A `CallSource` answers model and tool calls: the recording
in replay, the real callables in record mode. Everything the agent does through the runtime
becomes a trace-model event.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol, TypeVar

from corpus_tool.model.cut import DIVERGED
from corpus_tool.model.events import (
    Event,
    ModelCallEvent,
    ModelRequest,
    SideEffectEvent,
    ToolCallEvent,
)
from corpus_tool.model.field_diff import same
from corpus_tool.model.values import (
    ABSENT,
    ErrorInfo,
    JSONObject,
    JSONValue,
    ModelResponse,
    ToolCall,
)
from corpus_tool.replay.divergence import Divergence, DivergenceError
from corpus_tool.replay.emitted import EMITTABLE, emitted
from corpus_tool.replay.plain import plain
from corpus_tool.replay.provider import RecordedError

T = TypeVar("T")
MAX_EVENTS = 10_000
"""Events one run may record: past it the agent is looping (an emit in `while True`)."""


class ToolError(Exception):
    """A tool failed: `type` (exception class or code) and `message`, as recorded."""

    def __init__(self, type: str, message: str, seq: int | None = None):
        super().__init__(f"{type}: {message}")
        self.type = type
        self.message = message
        self.seq = seq


class EventLimit(BaseException):
    """Raised inside agent code at the event past MAX_EVENTS; a BaseException, like a divergence,
    so `except Exception` in the loop cannot swallow it."""


@dataclass(frozen=True)
class ModelAnswer:
    """A model's answer and where it came from (recording, continuation, live)."""

    response: ModelResponse
    model: str | None = None
    duration_ms: float | None = None
    origin: str = "recording"
    usage: Mapping[str, Any] | None = None
    """The recorded call's token counts (what a provider double reports back)."""
    error: RecordedError | None = None
    """The recorded call failed at the provider: `rt.model` raises it as a ProviderError."""


@dataclass(frozen=True)
class ToolAnswer:
    """A tool's result or error, with the facts the recording holds about the call."""

    result: JSONValue = None
    error: ErrorInfo | None = None
    duration_ms: float | None = None
    egress: str | None = None
    idempotency_key: str | None = None
    origin: str = "recording"
    effects: tuple[JSONObject, ...] = ()
    """Side effects the world caused on its own (a fault variant's second execution): each a
    `side_effect` event's `kind`, `target`, `data`, recorded after the call."""


class CallSource(Protocol):
    """Answers model and tool calls (the recording, stubs, or the real thing)."""

    def model(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer: ...

    def tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer: ...


class Clock(Protocol):
    """Time as the agent sees it."""

    def now(self) -> datetime: ...

    def advance(self, milliseconds: float) -> None: ...


@dataclass
class FrozenClock:
    """Stands still at `start`; moves only by the durations the runtime reports."""

    start: datetime
    offset_ms: float = 0.0

    def now(self) -> datetime:
        return self.start + timedelta(milliseconds=self.offset_ms)

    def advance(self, milliseconds: float) -> None:
        self.offset_ms += milliseconds


@dataclass
class SystemClock:
    """The real clock (record mode in production)."""

    tz: Any = field(default=timezone.utc)

    def now(self) -> datetime:
        return datetime.now(self.tz)

    def advance(self, milliseconds: float) -> None:
        """Real time advances by itself."""


class Runtime:
    """The agent's only door to the world (README, "Replay and grading")."""

    def __init__(self, source: CallSource, clock: Clock, rng: random.Random):
        self._source = source
        self._clock = clock
        self._random = rng
        self.events: list[Event] = []
        self.divergences: list[Divergence] = []
        self.overflowed = False  # the agent went past MAX_EVENTS (even if it caught EventLimit)
        self._steps = 0
        self._requested: list[ToolCall] = []  # tool calls models asked for, oldest first
        self._linked: dict[int, str] = {}  # index in _requested -> call id, once called
        self.last_answer: ModelAnswer | None = (
            None  # the latest model answer, as the source gave it
        )

    @property
    def random(self) -> random.Random:
        """A random.Random seeded from the recording; the process's `random` is untouched."""
        return self._random

    def now(self) -> datetime:
        """An aware datetime: the recording's start, advanced by recorded durations."""
        return self._clock.now()

    def model(
        self,
        messages: list[Any],
        tools: list[Any] | None = None,
        *,
        model: str | None = None,
        temperature: float | None = None,
        **params: Any,
    ) -> ModelResponse:
        """Ask the model; the answer comes from the source (the recording, in replay)."""
        request = ModelRequest(
            tuple(plain(messages)),
            None if tools is None else tuple(plain(tools)),
            temperature,
            plain(params) if params else None,
        )
        stamp = self._stamp()
        try:
            answer = self._ask(lambda step: self._source.model(request, model, step))
        except DivergenceError:
            self._attempted(
                lambda seq, extra: ModelCallEvent(
                    seq=seq,
                    model=model or "unknown",
                    request=request,
                    response=ModelResponse(),
                    timestamp=stamp,
                    extra=extra,
                )
            )
            raise
        self.last_answer = answer
        seq = self._next_seq()
        timing = self._took(answer.duration_ms)
        event = ModelCallEvent(
            seq=seq,
            model=answer.model or model or "unknown",
            request=request,
            response=answer.response,
            timestamp=stamp,
            duration_ms=timing,
            extra=_origin(answer.origin),
        )
        if answer.error is not None:  # the provider refused the recorded call: so again
            self._append(replace(event, extra={**(event.extra or {}), "error": _doc(answer)}))
            raise answer.error.raised()
        self._append(event)
        self._requested.extend(answer.response.tool_calls)
        return _copied(answer.response)

    def tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """Call a tool; returns its result or raises ToolError(type, message)."""
        args = plain(arguments)
        stamp = self._stamp()
        try:
            answer = self._ask(lambda step: self._source.tool(name, args, step))
        except DivergenceError:
            self._attempted(
                lambda seq, extra: ToolCallEvent(
                    seq=seq,
                    tool=name,
                    call_id=self._link(name, args),
                    arguments=args,
                    timestamp=stamp,
                    extra=extra,
                )
            )
            raise
        seq = self._next_seq()
        event = ToolCallEvent(
            seq=seq,
            tool=name,
            call_id=self._link(name, args),
            arguments=args,
            result=plain(answer.result) if answer.error is None else ABSENT,
            error=answer.error,
            egress=answer.egress,
            idempotency_key=answer.idempotency_key,
            timestamp=stamp,
            duration_ms=self._took(answer.duration_ms),
            extra=_origin(answer.origin),
        )
        self._append(event)
        for effect in answer.effects:
            self._world_effect(effect, stamp)
        if answer.error is not None:
            raise ToolError(answer.error.type, answer.error.message, seq)
        return plain(answer.result)

    def emit(self, event_type: str, /, **fields: Any) -> int:
        """Record an event the agent caused (side_effect, state_change, retry, ...); its seq."""
        if event_type not in EMITTABLE:
            raise ValueError(
                f"rt.emit: unknown event type {event_type!r}; use one of {', '.join(EMITTABLE)}"
            )
        seq = self._next_seq()
        return self._append(emitted(event_type, seq, plain(fields), self._stamp()))

    @property
    def last_seq(self) -> int:
        """seq of the latest event (what a `retry` event's `of` points at)."""
        return len(self.events)

    def _link(self, name: str, args: dict[str, Any]) -> str | None:
        """The id of the model-requested call this tool call answers (a retry reuses it)."""
        fits = [i for i, c in enumerate(self._requested) if c.name == name and c.id is not None]
        exact = [i for i in fits if same(self._requested[i].arguments, args)]
        fresh = [i for i in exact if i not in self._linked]
        loose = [i for i in fits if i not in self._linked]
        # a retry answers the same request again: the latest one already called
        retried = [i for i in exact if i in self._linked][-1:] or [
            i for i in fits if i in self._linked
        ][-1:]
        for pick in (fresh, loose, retried):
            if pick:
                self._linked[pick[0]] = str(self._requested[pick[0]].id)
                return self._linked[pick[0]]
        return None

    def _ask(self, call: Callable[[int], T]) -> T:
        self._steps += 1
        try:
            return call(self._steps)
        except DivergenceError as err:
            self.divergences.append(err.divergence)
            raise

    def _attempted(self, build: Callable[[int, dict[str, str]], Event]) -> None:
        """The call a divergence stopped is part of the trajectory: the agent did make it.

        Its `extra` names the divergence (the one `_ask` just kept); it has no answer.
        """
        if len(self.events) < MAX_EVENTS:
            kind = self.divergences[-1].kind
            self._append(build(len(self.events) + 1, {DIVERGED: kind}))

    def _world_effect(self, effect: JSONObject, stamp: str) -> None:
        """A side effect the world caused (not the agent): marked `origin: fault`."""
        target = effect.get("target")
        self._append(
            SideEffectEvent(
                seq=self._next_seq(),
                kind=str(effect.get("kind")),
                target=None if target is None else str(target),
                data=plain(effect["data"]) if "data" in effect else ABSENT,
                timestamp=stamp,
                extra={"origin": "fault"},
            )
        )

    def _stamp(self) -> str:
        return self._clock.now().isoformat(timespec="milliseconds")

    def _took(self, duration: float | None) -> float | None:
        if duration is not None:
            self._clock.advance(duration)
        return duration

    def _next_seq(self) -> int:
        seq = len(self.events) + 1
        if seq > MAX_EVENTS:
            self.overflowed = True
            raise EventLimit(f"more than {MAX_EVENTS:,} events in one run")
        return seq

    def _append(self, event: Event) -> int:
        self.events.append(event)
        return event.seq


def _origin(origin: str) -> dict[str, str] | None:
    """Stub or continuation: the event is past the recording, and says so."""
    return None if origin in ("recording", "live") else {"origin": origin}


def _doc(answer: ModelAnswer) -> dict[str, Any]:
    """A recorded provider error as the trajectory keeps it (the model call's `extra.error`)."""
    error = answer.error
    assert error is not None
    found = {"status": error.status, "type": error.type, "code": error.code, "param": error.param}
    return {**{k: v for k, v in found.items() if v is not None}, "message": error.message}


def _copied(response: ModelResponse) -> ModelResponse:
    """The response the agent gets: arguments it may mutate without touching the trajectory."""
    calls = tuple(ToolCall(c.id, c.name, plain(c.arguments)) for c in response.tool_calls)
    return ModelResponse(response.content, calls, response.finish_reason)
