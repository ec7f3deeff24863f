"""A trajectory as graders see it: the tool calls and errors pulled out once, for every check."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from corpus_tool.grade.scorers import Scorer, Scorers
from corpus_tool.io.files import canonical_json
from corpus_tool.model.events import ErrorEvent, Event, ToolCallEvent
from corpus_tool.model.trace import Terminal, Trajectory

IDEMPOTENCY_ARG = "idempotency_key"


@dataclass(frozen=True)
class ErrorSeen:
    """An error of the run: a tool call's error or an `error` event."""

    seq: int
    type: str
    message: str
    where: str

    def text(self) -> str:
        """`Type at seq N (where): message`."""
        tail = f": {self.message}" if self.message else ""
        return f"{self.type} at seq {self.seq} ({self.where}){tail}"


@dataclass(frozen=True)
class RunView:
    """Everything a grader may look at; built once per grading."""

    trajectory: Trajectory
    scorer: Scorer | None
    calls: tuple[ToolCallEvent, ...]
    errors: tuple[ErrorSeen, ...]
    scorers: Scorers = field(default_factory=Scorers)  # what a case may name

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event of the run, in order."""
        return self.trajectory.events

    @property
    def terminal(self) -> Terminal:
        """How the run ended."""
        return self.trajectory.terminal


def view(trajectory: Trajectory, scorer: Scorer | None, scorers: Scorers | None = None) -> RunView:
    """Index the trajectory once for all graders."""
    calls = trajectory.tool_calls
    errors = tuple(_errors(trajectory.events))
    return RunView(trajectory, scorer, calls, errors, scorers or Scorers())


def _errors(events: Iterable[Event]) -> Iterable[ErrorSeen]:
    for event in events:
        if isinstance(event, ToolCallEvent) and event.error is not None:
            where = f"tool {event.tool}"
        elif isinstance(event, ErrorEvent):
            where = "error event" + (f", node {event.node}" if event.node else "")
        else:
            continue
        assert event.error is not None
        yield ErrorSeen(event.seq, event.error.type, event.error.message, where)


def label(call: ToolCallEvent) -> str:
    """`tool (seq N)`, how messages name a call."""
    return f"{call.tool} (seq {call.seq})"


def error_type(call: ToolCallEvent) -> str | None:
    """The type of the call's error, None when it succeeded."""
    return call.error.type if call.error is not None else None


def idempotency_key(call: ToolCallEvent) -> str | None:
    """The call's idempotency key: the event's, else an `idempotency_key` argument."""
    key = call.idempotency_key
    if key is None:
        key = call.arguments.get(IDEMPOTENCY_ARG)
    return None if key is None else str(key)


def identity(call: ToolCallEvent) -> str:
    """The call's identity for repeats: tool and canonical arguments, the key left out."""
    args = {k: v for k, v in call.arguments.items() if k != IDEMPOTENCY_ARG}
    return f"{call.tool} {canonical_json(_canonical(args))}"


def _canonical(value: Any) -> Any:
    """JSON numbers by value (5900.0 is 5900), so equal requests have one text."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def show(value: Any, limit: int = 80) -> str:
    """A value as JSON on one line, cut to `limit` characters, for messages."""
    text = canonical_json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def seqs(calls: Iterable[ToolCallEvent]) -> str:
    """`seq 4, 7` for a group of calls."""
    return "seq " + ", ".join(str(c.seq) for c in calls)


def plural(n: int, word: str) -> str:
    """`1 call`, `2 calls`."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
