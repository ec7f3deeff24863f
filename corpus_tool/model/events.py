"""The events of a trace, one frozen class per `type` (schemas/trace.schema.json `$defs`).

`event_from_doc` builds one from its trace.yaml form (schema-checked before), `Event.to_doc`
writes it back in the canonical key order: `seq`, `type`, `node`, the kind's own fields in
schema order, then `parent`, `timestamp`, `duration_ms`, `truncated`, `extra`. Reading a file
and writing it back changes no byte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias

from corpus_tool.model.values import ABSENT, ErrorInfo, JSONObject, JSONValue, ModelResponse


@dataclass(frozen=True, slots=True, kw_only=True)
class EventBase:
    """Keys every event may carry."""

    TYPE: ClassVar[str] = ""

    seq: int
    node: str | None = None
    parent: str | int | None = None
    timestamp: str | None = None
    duration_ms: float | None = None
    truncated: bool = False
    extra: JSONObject | None = None

    @property
    def type(self) -> str:
        """The event's `type` as trace.yaml writes it."""
        return self.TYPE

    def _head(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "type": self.TYPE}
        if self.node is not None:
            out["node"] = self.node
        return out

    def _tail(self, out: dict[str, Any]) -> dict[str, Any]:
        for key in ("parent", "timestamp", "duration_ms"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.truncated:
            out["truncated"] = True
        if self.extra:
            out["extra"] = dict(self.extra)
        return out


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """What the agent sent a model. `None` means the field was not sent (not recorded)."""

    messages: tuple[JSONValue, ...] = ()
    tools: tuple[JSONValue, ...] | None = None
    temperature: float | None = None
    params: JSONObject | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", tuple(self.messages))
        if self.tools is not None:
            object.__setattr__(self, "tools", tuple(self.tools))

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> ModelRequest:
        """From trace.yaml's `request` form."""
        tools = doc.get("tools")
        return cls(
            tuple(doc.get("messages") or ()),
            None if tools is None else tuple(tools),
            doc.get("temperature"),
            doc.get("params"),
        )

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form; unsent fields left out."""
        out: dict[str, Any] = {"messages": list(self.messages)}
        if self.tools is not None:
            out["tools"] = list(self.tools)
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.params is not None:
            out["params"] = dict(self.params)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelCallEvent(EventBase):
    """A call to a model: the request sent, the response received."""

    TYPE: ClassVar[str] = "model_call"

    model: str | None
    """None only in a known_unknown case whose source held no model id (`missing`)."""
    request: ModelRequest
    response: ModelResponse
    usage: JSONObject | None = None
    missing: tuple[str, ...] = ()

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form."""
        out = self._head()
        if self.model is not None:
            out["model"] = self.model
        if self.missing:
            out["missing"] = list(self.missing)
        out["request"] = self.request.to_doc()
        out["response"] = self.response.to_doc()
        if self.usage is not None:
            out["usage"] = dict(self.usage)
        return self._tail(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallEvent(EventBase):
    """A tool the agent called, with its result or its error (never both; neither when the
    answer was lost, which completeness reports)."""

    TYPE: ClassVar[str] = "tool_call"

    tool: str
    call_id: str | None = None
    arguments: JSONObject = field(default_factory=dict)
    result: JSONValue = ABSENT
    error: ErrorInfo | None = None
    egress: str | None = None
    idempotency_key: str | None = None
    fault: JSONObject | None = None
    """A fault variant's injected failure (`corpus vary`): what the first attempt of this call
    gets instead of `result`; a retry gets `result` (docs/variants.md)."""

    @property
    def answered(self) -> bool:
        """Whether the recording holds the call's result or error."""
        return self.result is not ABSENT or self.error is not None

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form."""
        out = self._head()
        out["tool"] = self.tool
        if self.call_id is not None:
            out["call_id"] = self.call_id
        out["arguments"] = dict(self.arguments)
        if self.result is not ABSENT:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error.to_doc()
        for key in ("egress", "idempotency_key"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.fault is not None:
            out["fault"] = dict(self.fault)
        return self._tail(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorEvent(EventBase):
    """An error raised outside a tool call, or by the agent's own code."""

    TYPE: ClassVar[str] = "error"

    error: ErrorInfo
    tool: str | None = None
    stack: str | None = None

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form."""
        out = self._head()
        out["error"] = self.error.to_doc()
        for key in ("tool", "stack"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return self._tail(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class StateChangeEvent(EventBase):
    """The agent changed a piece of its state."""

    TYPE: ClassVar[str] = "state_change"

    key: str
    value: JSONValue = ABSENT

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form."""
        out = self._head()
        out["key"] = self.key
        if self.value is not ABSENT:
            out["value"] = self.value
        return self._tail(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class SideEffectEvent(EventBase):
    """Something the run changed in the world (a refund created, a mail sent)."""

    TYPE: ClassVar[str] = "side_effect"

    kind: str
    target: str | None = None
    data: JSONValue = ABSENT

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form."""
        out = self._head()
        out["kind"] = self.kind
        if self.target is not None:
            out["target"] = self.target
        if self.data is not ABSENT:
            out["data"] = self.data
        return self._tail(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandoffEvent(EventBase):
    """Control passed from one agent (`from` in trace.yaml) to another."""

    TYPE: ClassVar[str] = "handoff"

    source: str | None
    to: str

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form."""
        out = self._head()
        out.update({"from": self.source, "to": self.to})
        return self._tail(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryEvent(EventBase):
    """A retry of the event at seq `of`."""

    TYPE: ClassVar[str] = "retry"

    of: int
    attempt: int | None = None

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form."""
        out = self._head()
        out["of"] = self.of
        if self.attempt is not None:
            out["attempt"] = self.attempt
        return self._tail(out)


Event: TypeAlias = (
    ModelCallEvent
    | ToolCallEvent
    | ErrorEvent
    | StateChangeEvent
    | SideEffectEvent
    | HandoffEvent
    | RetryEvent
)
EVENT_TYPES: tuple[str, ...] = (
    "model_call",
    "tool_call",
    "error",
    "state_change",
    "side_effect",
    "handoff",
    "retry",
)
CALL_TYPES = ("model_call", "tool_call")
"""The events replay answers from the recording; the others the agent causes itself."""
_COMMON = ("seq", "node", "parent", "timestamp", "duration_ms", "truncated", "extra")


def event_from_doc(doc: Mapping[str, Any]) -> Event:
    """An event from its trace.yaml form (schema-checked: a wrong shape raises KeyError)."""
    common: dict[str, Any] = {k: doc[k] for k in _COMMON if k in doc}
    common["truncated"] = bool(common.get("truncated", False))
    kind = doc["type"]
    if kind == "model_call":
        return ModelCallEvent(
            **common,
            model=doc.get("model"),
            request=ModelRequest.from_doc(doc["request"]),
            response=ModelResponse.from_doc(doc.get("response") or {}),
            usage=doc.get("usage"),
            missing=tuple(doc.get("missing") or ()),
        )
    if kind == "tool_call":
        return _tool_call(doc, common)
    built: Event = _BUILDERS[kind](doc, common)
    return built


def _tool_call(doc: Mapping[str, Any], common: dict[str, Any]) -> ToolCallEvent:
    error = doc.get("error")
    return ToolCallEvent(
        **common,
        tool=doc["tool"],
        call_id=doc.get("call_id"),
        arguments=doc.get("arguments") or {},
        result=doc.get("result", ABSENT),
        error=None if error is None else ErrorInfo.parse(error),
        egress=doc.get("egress"),
        idempotency_key=doc.get("idempotency_key"),
        fault=doc.get("fault"),
    )


_BUILDERS: dict[str, Any] = {
    "error": lambda d, c: ErrorEvent(
        **c, error=ErrorInfo.parse(d["error"]), tool=d.get("tool"), stack=d.get("stack")
    ),
    "state_change": lambda d, c: StateChangeEvent(**c, key=d["key"], value=d.get("value", ABSENT)),
    "side_effect": lambda d, c: SideEffectEvent(
        **c, kind=d["kind"], target=d.get("target"), data=d.get("data", ABSENT)
    ),
    "handoff": lambda d, c: HandoffEvent(**c, source=d.get("from"), to=d["to"]),
    "retry": lambda d, c: RetryEvent(**c, of=d["of"], attempt=d.get("attempt")),
}


def error_types(events: Sequence[Event]) -> list[str]:
    """The error types of `error` events and tool errors, in order."""
    return [
        e.error.type
        for e in events
        if isinstance(e, (ErrorEvent, ToolCallEvent)) and e.error is not None
    ]
