"""Calling a live model in the grading process: provider errors, retries, what each call cost.

The live model is the team's callable (`replay.live_model`); a provider error is
`ProviderError(status, message)` or any exception with a `status_code` attribute (what the
`openai` and `anthropic` SDKs raise). A 429, a 5xx or a timeout is retried with backoff; every
failed attempt is kept, so the case result can say what the provider answered.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from corpus_tool.model.config import DEFAULT_BACKOFF_S, DEFAULT_RETRIES
from corpus_tool.model.values import ModelResponse

TIMEOUT = "timeout"
"""The status of an attempt that timed out without an HTTP status."""


class ProviderError(Exception):
    """The model's provider failed: its HTTP status (or `timeout`) and message; a recorded
    provider error replayed also carries the API's error `type`, `code` and `param`."""

    def __init__(
        self,
        status: int | str | None,
        message: str,
        *,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
    ):
        super().__init__(f"provider status {status}: {message}")
        self.status = status
        self.message = message
        self.type, self.code, self.param = type, code, param


@dataclass(frozen=True)
class RecordedError:
    """A model call the provider refused, as the recording holds it: an `llm_request` whose
    `error` is `{status, type, code, param, message}` with an HTTP status of 400 to 599 (kept
    in the model call's `extra.error`; its response is empty)."""

    status: int
    message: str
    type: str | None = None
    code: str | None = None
    param: str | None = None

    def raised(self) -> ProviderError:
        """The error the agent gets from `rt.model`."""
        return ProviderError(
            self.status, self.message, type=self.type, code=self.code, param=self.param
        )


def recorded_error(extra: Mapping[str, Any] | None) -> RecordedError | None:
    """The recorded provider error in a model call's `extra`, if it holds one."""
    raw = (extra or {}).get("error")
    status = raw.get("status") if isinstance(raw, Mapping) else None
    if not isinstance(status, int) or isinstance(status, bool) or not 400 <= status <= 599:
        return None
    assert isinstance(raw, Mapping)

    def text(key: str) -> str | None:
        value = raw.get(key)
        return None if value is None else str(value)

    return RecordedError(status, text("message") or "", text("type"), text("code"), text("param"))


@dataclass(frozen=True)
class Attempt:
    """One failed attempt at a model call."""

    status: int | str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        """The results document's `{status, message}`."""
        return {"status": self.status, "message": self.message}


@dataclass(frozen=True)
class Called:
    """One live model call as the grading process saw it: the answer or the last error."""

    response: ModelResponse | None
    errors: tuple[Attempt, ...] = ()
    duration_ms: float = 0.0
    failed: Attempt | None = None
    """Set when no attempt answered: the error the agent gets."""


@dataclass(frozen=True)
class RetryPolicy:
    """`replay.live.retries` and `replay.live.backoff_s`: retries after the first attempt, and
    the wait before the first retry (doubled each time)."""

    retries: int = DEFAULT_RETRIES
    backoff_s: float = DEFAULT_BACKOFF_S
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    timeout_s: float | None = None
    """How long one attempt may take (the run's `replay.timeout_s`): a provider that never
    answers is a timeout, retried like one, never a run that hangs."""


ModelCallable = Callable[..., Any]
"""The live model: `model(messages, *, tools=..., model=..., temperature=..., **params)`."""


def call_live(model: ModelCallable, body: Mapping[str, Any], retry: RetryPolicy) -> Called:
    """Ask the live model for a request in trace.yaml form (`messages`, `tools`, ...)."""
    messages, kwargs = arguments(body)
    errors: list[Attempt] = []
    started = time.perf_counter()
    for attempt in range(retry.retries + 1):
        try:
            response = _bounded(model, messages, kwargs, retry.timeout_s)
        except Exception as err:  # the team's callable: any failure is the case's, not ours
            errors.append(attempt_of(err))
            if not retryable(errors[-1]) or attempt == retry.retries:
                return Called(None, tuple(errors), _since(started), errors[-1])
            retry.sleep(retry.backoff_s * 2**attempt)
            continue
        if not isinstance(response, ModelResponse):
            failure = Attempt(
                None,
                f"the live model returned {type(response).__name__}, "
                "not a corpus_tool.ModelResponse",
            )
            return Called(None, (*errors, failure), _since(started), failure)
        return Called(response, tuple(errors), _since(started))
    raise AssertionError("unreachable")  # pragma: no cover


def _bounded(
    model: ModelCallable, messages: list[Any], kwargs: dict[str, Any], timeout_s: float | None
) -> Any:
    """`model(messages, **kwargs)`, given up on after `timeout_s`: it runs on a daemon thread,
    so a call that never returns is left behind without holding up the run or its exit."""
    if timeout_s is None:
        return model(messages, **kwargs)
    outcome: list[Any] = []
    finished = threading.Event()

    def attempt() -> None:
        try:
            outcome.append((True, model(messages, **kwargs)))
        except BaseException as err:  # handed to the caller's thread as it is
            outcome.append((False, err))
        finished.set()

    threading.Thread(target=attempt, name="corpus-live-call", daemon=True).start()
    if not finished.wait(timeout_s):
        raise TimeoutError(f"the live model gave no answer within {timeout_s:g}s")
    answered, value = outcome[0]
    if not answered:
        raise value
    return value


def arguments(body: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The live model's arguments from a request: those the agent passed to `rt.model`."""
    kwargs: dict[str, Any] = dict(body.get("params") or {})
    for key in ("tools", "temperature", "model"):
        if body.get(key) is not None:
            kwargs[key] = body[key]
    return list(body.get("messages") or []), kwargs


def attempt_of(err: Exception) -> Attempt:
    """The status and message of a failed attempt."""
    status = getattr(err, "status", None) if isinstance(err, ProviderError) else None
    status = status if status is not None else getattr(err, "status_code", None)
    if status is None and _timed_out(err):
        status = TIMEOUT
    message = err.message if isinstance(err, ProviderError) else str(err)
    text = " ".join(message.split())[:300] or type(err).__name__
    return Attempt(status if isinstance(status, (int, str)) else None, text)


def retryable(attempt: Attempt) -> bool:
    """429, any 5xx, a timeout: worth another attempt."""
    status = attempt.status
    if status == TIMEOUT:
        return True
    return isinstance(status, int) and (status == 429 or 500 <= status <= 599)


def _timed_out(err: Exception) -> bool:
    return isinstance(err, TimeoutError) or "Timeout" in type(err).__name__


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
