"""The trace: a normalized, redacted recording (trace.yaml), as frozen values.

Built once from a schema-checked document (`Trace.from_doc`); `Trace.to_doc` writes the same
document back, keys in the canonical order, so a file read and written again changes no byte.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from corpus_tool.model.cut import CutShort
from corpus_tool.model.events import (
    Event,
    ModelCallEvent,
    ToolCallEvent,
    event_from_doc,
)
from corpus_tool.model.values import JSONObject, JSONValue

SCHEMA_VERSION = 1
E = TypeVar("E")


def _known(obj: object, keys: tuple[str, ...]) -> dict[str, Any]:
    """`keys` of `obj` whose value is not None, in order: a document leaves unknowns out."""
    return {k: getattr(obj, k) for k in keys if getattr(obj, k) is not None}


@dataclass(frozen=True, slots=True)
class Slice:
    """The seq range `corpus add --start/--end` kept."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Minimized:
    """What `corpus minimize` removed (the incident's seq numbers) and the replays it took."""

    trigger: str
    removed: tuple[int, ...]
    replays: int

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Minimized:
        """From trace.yaml's `source.minimized` block."""
        return cls(str(doc["trigger"]), tuple(doc["removed"]), int(doc["replays"]))

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form."""
        return {"trigger": self.trigger, "removed": list(self.removed), "replays": self.replays}


@dataclass(frozen=True, slots=True)
class Source:
    """Where the recording came from (no wall-clock stamps: re-adding is byte-stable)."""

    format: str
    sha256: str
    trace_id: str | None = None
    session_id: str | None = None
    slice: Slice | None = None
    minimized: Minimized | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Source:
        """From trace.yaml's `source` block."""
        cut, shrunk = doc.get("slice"), doc.get("minimized")
        return cls(
            doc["format"],
            doc["sha256"],
            doc.get("trace_id"),
            doc.get("session_id"),
            Slice(cut["start"], cut["end"]) if cut else None,
            Minimized.from_doc(shrunk) if shrunk else None,
        )

    def to_doc(self) -> dict[str, Any]:
        """`trace_id` is always written (null when the incident had none)."""
        out: dict[str, Any] = {"format": self.format, "trace_id": self.trace_id}
        if self.session_id is not None:
            out["session_id"] = self.session_id
        out["sha256"] = self.sha256
        if self.slice is not None:
            out["slice"] = {"start": self.slice.start, "end": self.slice.end}
        if self.minimized is not None:
            out["minimized"] = self.minimized.to_doc()
        return out


@dataclass(frozen=True, slots=True)
class AgentVersion:
    """The agent that ran: a name and a version or config hash, at least."""

    name: str | None = None
    version: str | None = None
    config_hash: str | None = None
    prompt_version: str | None = None

    KEYS = ("name", "version", "config_hash", "prompt_version")

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> AgentVersion:
        """From trace.yaml's `recorded.agent` block."""
        return cls(*(doc.get(k) for k in cls.KEYS))

    def to_doc(self) -> dict[str, Any]:
        """The facts that are known, in schema order."""
        return _known(self, self.KEYS)


@dataclass(frozen=True, slots=True)
class Recorded:
    """Facts about the world the run happened in (compared with corpus.yaml for drift)."""

    started_at: str | None
    """None only in a known_unknown case whose source held no time (`missing`)."""
    agent: AgentVersion
    models: tuple[str, ...]
    timezone: str | None = None
    seed: int | None = None
    app_version: str | None = None
    tool_schema_hash: str | None = None
    missing: tuple[str, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Recorded:
        """From trace.yaml's `recorded` block."""
        return cls(
            doc.get("started_at"),
            AgentVersion.from_doc(doc.get("agent") or {}),
            tuple(doc.get("models") or ()),
            doc.get("timezone"),
            doc.get("seed"),
            doc.get("app_version"),
            doc.get("tool_schema_hash"),
            tuple(doc.get("missing") or ()),
        )

    def to_doc(self) -> dict[str, Any]:
        """Known facts in schema order."""
        out = _known(self, ("started_at", "timezone", "seed", "app_version"))
        if self.missing:
            out["missing"] = list(self.missing)
        out["agent"] = self.agent.to_doc()
        out["models"] = list(self.models)
        return out | _known(self, ("tool_schema_hash",))


@dataclass(frozen=True, slots=True)
class Input:
    """What the agent was asked; the entrypoint receives it as a dict (`to_doc`)."""

    user_message: str | None = None
    context: JSONObject = field(default_factory=dict)
    conversation: tuple[JSONValue, ...] = ()
    extra: JSONObject | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Input:
        """From trace.yaml's `input` block."""
        return cls(
            doc.get("user_message"),
            doc.get("context") or {},
            tuple(doc.get("conversation") or ()),
            doc.get("extra"),
        )

    def to_doc(self) -> dict[str, Any]:
        """`user_message`, `context` and `conversation` are always written."""
        out: dict[str, Any] = {
            "user_message": self.user_message,
            "context": dict(self.context),
            "conversation": list(self.conversation),
        }
        if self.extra:
            out["extra"] = dict(self.extra)
        return out


@dataclass(frozen=True, slots=True)
class Terminal:
    """How a run ended: a status (schemas' terminal_status) and the final output."""

    status: str
    output: JSONValue = None
    seq: int | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Terminal:
        """From a `terminal` block."""
        return cls(doc["status"], doc.get("output"), doc.get("seq"))

    def to_doc(self) -> dict[str, Any]:
        """`output` is always written; `seq` when the incident had a final event."""
        out: dict[str, Any] = {"status": self.status, "output": self.output}
        if self.seq is not None:
            out["seq"] = self.seq
        return out


@dataclass(frozen=True, slots=True)
class Redaction:
    """How values were redacted: the policy version, the key's id (never the key), a count."""

    policy: int
    key_id: str | None
    replaced: int

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Redaction:
        """From trace.yaml's `redaction` block."""
        return cls(doc["policy"], doc.get("key_id"), doc["replaced"])

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form."""
        return {"policy": self.policy, "key_id": self.key_id, "replaced": self.replaced}


@dataclass(frozen=True, slots=True)
class Trace:
    """One case's recording: trace.yaml as a value."""

    id: str
    source: Source
    recorded: Recorded
    input: Input
    events: tuple[Event, ...]
    terminal: Terminal
    redaction: Redaction
    extra: JSONObject | None = None
    schema_version: int = SCHEMA_VERSION
    derived_from: str | None = None
    """The source case's id, for a case `corpus vary` derived (a fault variant)."""

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Trace:
        """From a schema-checked trace.yaml document."""
        return cls(
            doc["id"],
            Source.from_doc(doc["source"]),
            Recorded.from_doc(doc["recorded"]),
            Input.from_doc(doc.get("input") or {}),
            tuple(event_from_doc(e) for e in doc.get("events") or ()),
            Terminal.from_doc(doc["terminal"]),
            Redaction.from_doc(doc["redaction"]),
            doc.get("extra"),
            doc.get("schema_version", SCHEMA_VERSION),
            doc.get("derived_from"),
        )

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml document, keys in reading order."""
        out: dict[str, Any] = {
            "schema_version": self.schema_version,
            "id": self.id,
            **({} if self.derived_from is None else {"derived_from": self.derived_from}),
            "source": self.source.to_doc(),
            "recorded": self.recorded.to_doc(),
            "input": self.input.to_doc(),
            "events": [e.to_doc() for e in self.events],
            "terminal": self.terminal.to_doc(),
            "redaction": self.redaction.to_doc(),
        }
        if self.extra:
            out["extra"] = dict(self.extra)
        return out

    def of_type(self, kind: type[E]) -> Iterator[E]:
        """The events of one class, in recorded order."""
        return (e for e in self.events if isinstance(e, kind))

    @property
    def model_calls(self) -> tuple[ModelCallEvent, ...]:
        """The recorded model calls, in order."""
        return tuple(self.of_type(ModelCallEvent))

    @property
    def tool_calls(self) -> tuple[ToolCallEvent, ...]:
        """The recorded tool calls, in order."""
        return tuple(self.of_type(ToolCallEvent))


@dataclass(frozen=True, slots=True)
class Trajectory:
    """A run as graders see it: its events and how it ended (a replay's, or a recording's).

    `cut` is set when a divergence stopped the run: then `terminal` was never reached (it is
    `unknown`), and graders decide only what every allowed completion agrees on.
    """

    events: tuple[Event, ...]
    terminal: Terminal
    cut: CutShort | None = None

    def of_type(self, kind: type[E]) -> Iterator[E]:
        """The events of one class, in order."""
        return (e for e in self.events if isinstance(e, kind))

    @property
    def tool_calls(self) -> tuple[ToolCallEvent, ...]:
        """The tool calls, in order."""
        return tuple(self.of_type(ToolCallEvent))
