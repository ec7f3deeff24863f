"""Record mode: the same Runtime around a real model and real tools, writing a native incident.

What production records and what CI replays are one format: `corpus add` reads the file this
writes, and replaying the case it makes reproduces the run strictly.
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from corpus_tool.errors import UsageError
from corpus_tool.io import files
from corpus_tool.model.events import ModelRequest
from corpus_tool.model.values import ErrorInfo, ModelResponse
from corpus_tool.replay.engine import run_agent
from corpus_tool.replay.native_out import RecordMeta, incident
from corpus_tool.replay.runtime import (
    Clock,
    FrozenClock,
    ModelAnswer,
    Runtime,
    SystemClock,
    ToolAnswer,
    ToolError,
)
from corpus_tool.replay.workers.loader import Agent

ModelFn = Callable[..., ModelResponse]
"""The model callable record mode wraps: `model(messages, *, tools=..., model=..., temperature=...,
**params) -> ModelResponse`. It gets the keyword arguments the agent passed to `rt.model`
(those it left out are left out), and returns the answer the agent then gets."""
ToolFn = Callable[[dict[str, Any]], Any]
"""A tool callable record mode wraps: `tool(arguments) -> result`. An exception it raises is
recorded as the call's error (a `ToolError` keeps its type) and reaches the agent as ToolError."""
Timer = Callable[[str], float]


class NoModelId(BaseException):
    """A model call without a model id: the recording would be incomplete. A BaseException,
    so the agent's `except Exception` cannot carry on past it; `record` turns it into an error."""

    def __init__(self, step: int):
        super().__init__(f"model call at step {step} names no model id")
        self.step = step


class LiveSource:
    """Answers calls with the real (or fake) model and tool callables, timing each."""

    def __init__(
        self,
        model: ModelFn,
        tools: Mapping[str, ToolFn],
        egress: Mapping[str, str],
        timer: Timer | None,
    ):
        self._model, self._tools, self._egress, self._timer = model, tools, egress, timer
        self.unnamed: int | None = None  # the first model call without a model id

    def model(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        if model is None:  # refused before the real model is paid for
            self.unnamed = step
            raise NoModelId(step)
        body = request.to_doc()
        kwargs: dict[str, Any] = dict(body.get("params") or {})
        for key in ("tools", "temperature"):
            if key in body:
                kwargs[key] = body[key]
        if model is not None:
            kwargs["model"] = model
        started = time.perf_counter()
        response = self._model(copy.deepcopy(body["messages"]), **kwargs)
        return ModelAnswer(response, model, self._took("model", started), "live")

    def tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer:
        started = time.perf_counter()
        error: ErrorInfo | None = None
        result: Any = None
        call = self._tools.get(name)
        try:
            if call is None:
                raise ToolError("UnknownTool", f"no tool named {name!r} was given to record()")
            result = call(copy.deepcopy(arguments))
        except ToolError as err:
            error = ErrorInfo(err.type, err.message)
        except Exception as err:  # a real tool's failure is a fact to record, not a crash
            error = ErrorInfo(type(err).__name__, str(err))
        key = arguments.get("idempotency_key")
        return ToolAnswer(
            result,
            error,
            self._took(name, started),
            self._egress.get(name),
            key if isinstance(key, str) else None,
            "live",
        )

    def _took(self, name: str, started: float) -> float:
        took = self._timer(name) if self._timer is not None else time.perf_counter() - started
        if self._timer is None:
            took = round(took * 1000, 1)
        return int(took) if float(took).is_integer() else took


def record(
    agent: Agent,
    case_input: Mapping[str, Any],
    *,
    model: ModelFn,
    tools: Mapping[str, ToolFn],
    meta: RecordMeta,
    egress: Mapping[str, str] | None = None,
    timer: Timer | None = None,
    out: Path | None = None,
) -> dict[str, Any]:
    """Run `agent` against real callables and return (and write to `out`) a native incident.

    Every model call must name its model (`rt.model(..., model="...")`): a recording without
    model ids is refused with a UsageError, and nothing is written.
    """
    start = meta.started_at or datetime.now(timezone.utc)
    clock: Clock = FrozenClock(start) if meta.started_at is not None else SystemClock()
    seed = meta.seed if meta.seed is not None else random.SystemRandom().randrange(2**31)
    source = LiveSource(model, tools, egress or {}, timer)
    rt = Runtime(source, clock, random.Random(seed))
    terminal = run_agent(agent, copy.deepcopy(dict(case_input)), rt)
    if source.unnamed is not None:
        raise UsageError(
            f"record: the agent's model call at step {source.unnamed} names no model id, and an "
            "incident without one is incomplete (corpus add refuses it); pass it where the agent "
            'asks the model: rt.model(messages, ..., model="<model id>")'
        )
    doc = incident(meta, start, seed, case_input, rt.events, terminal)
    if out is not None:
        files.atomic_write(out, files.json_text(doc))
    return doc
