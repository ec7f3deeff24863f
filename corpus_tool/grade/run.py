"""A replayed run as graders see it: the events, the tool calls pulled out of them, the end."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpus_tool.events import parse_error
from corpus_tool.files import canonical_json
from corpus_tool.grade.scorers import Scorer, Scorers

IDEMPOTENCY_ARG = "idempotency_key"


@dataclass(frozen=True)
class ToolCall:
    """One `tool_call` event, with the fields graders read."""

    seq: int
    tool: str
    arguments: Mapping[str, Any]
    error_type: str | None
    egress: str | None
    idempotency_key: str | None

    def label(self) -> str:
        """`tool (seq N)`, how messages name a call."""
        return f"{self.tool} (seq {self.seq})"

    def request(self) -> str:
        """The call's identity for repeats: tool and canonical arguments, the key left out."""
        args = {k: v for k, v in self.arguments.items() if k != IDEMPOTENCY_ARG}
        return f"{self.tool} {canonical_json(_canonical(args))}"


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
class Run:
    """Everything a grader may look at; built once per `grade` call."""

    events: tuple[Mapping[str, Any], ...]
    terminal: Mapping[str, Any]
    scorer: Scorer | None
    calls: tuple[ToolCall, ...]
    errors: tuple[ErrorSeen, ...]
    scorers: Scorers = field(default_factory=Scorers)  # what a case may name

    def of_type(self, event_type: str) -> list[tuple[int, Mapping[str, Any]]]:
        """(seq, event) for every event of one type, in order."""
        return [(seq_of(e, i), e) for i, e in enumerate(self.events) if e.get("type") == event_type]


def _canonical(value: Any) -> Any:
    """JSON numbers by value (5900.0 is 5900), so equal requests have one text."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def make_run(
    events: Sequence[Mapping[str, Any]],
    terminal: Mapping[str, Any],
    scorer: Scorer | None,
    scorers: Scorers | None = None,
) -> Run:
    """Index the events once for all graders."""
    evs = tuple(e for e in events if isinstance(e, Mapping))
    calls = tuple(_tool_call(e, i) for i, e in enumerate(evs) if e.get("type") == "tool_call")
    errors = tuple(_errors(evs))
    end = terminal if isinstance(terminal, Mapping) else {}
    return Run(evs, end, scorer, calls, errors, scorers or Scorers())


def seq_of(event: Mapping[str, Any], index: int) -> int:
    """The event's seq; its 1-based position when a producer left seq out."""
    seq = event.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else index + 1


def _tool_call(event: Mapping[str, Any], index: int) -> ToolCall:
    args = event.get("arguments")
    args = args if isinstance(args, Mapping) else {}
    key = event.get("idempotency_key")
    if key is None:
        key = args.get(IDEMPOTENCY_ARG)
    error = _error_of(event.get("error"))
    egress = event.get("egress")
    return ToolCall(
        seq=seq_of(event, index),
        tool=str(event.get("tool") or "?"),
        arguments=args,
        error_type=error[0] if error else None,
        egress=str(egress) if egress else None,
        idempotency_key=None if key is None else str(key),
    )


def _errors(events: Iterable[Mapping[str, Any]]) -> Iterable[ErrorSeen]:
    for index, event in enumerate(events):
        kind = event.get("type")
        if kind not in ("tool_call", "error"):
            continue
        error = _error_of(event.get("error"))
        if error is None:
            continue
        if kind == "tool_call":
            where = f"tool {event.get('tool') or '?'}"
        else:
            where = "error event" + (f", node {event['node']}" if event.get("node") else "")
        yield ErrorSeen(seq_of(event, index), error[0], error[1], where)


def _error_of(error: Any) -> tuple[str, str] | None:
    """(type, message) of an error object; a bare `"Type: message"` string is tolerated."""
    if isinstance(error, Mapping) and error.get("type"):
        return str(error["type"]), str(error.get("message") or "")
    if isinstance(error, str) and error:
        parsed = parse_error(error)
        return parsed["type"], parsed["message"]
    return None


def show(value: Any, limit: int = 80) -> str:
    """A value as JSON on one line, cut to `limit` characters, for messages."""
    text = canonical_json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def seqs(calls: Iterable[ToolCall]) -> str:
    """`seq 4, 7` for a group of calls."""
    return "seq " + ", ".join(str(c.seq) for c in calls)


def names(spec: Any) -> list[str]:
    """A spec's list of names (tools, error types, hosts) as strings."""
    return [str(n) for n in spec or []]


def plural(n: int, word: str) -> str:
    """`1 call`, `2 calls`."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
