"""Expectations (expected.yaml) as frozen values: what must hold when a case is replayed.

Each `expect` key is a small class whose fields are its sub-keys; a sub-key the file leaves
out is None, and its check does not run. expected.yaml is written by people (with comments),
so it is only read into this model, never written back from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from corpus_tool.model.values import ErrorInfo, JSONObject, JSONValue, ToolCall


def _names(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(v) for v in value)


@dataclass(frozen=True, slots=True)
class ErrorsExpect:
    """`expect.errors`: error types that must not (`forbidden`) or must (`required`) occur."""

    forbidden: tuple[str, ...] | None = None
    required: tuple[str, ...] | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> ErrorsExpect:
        return cls(_names(doc.get("forbidden")), _names(doc.get("required")))


@dataclass(frozen=True, slots=True)
class ArgsExpect:
    """One `tools.args` constraint: some call of `tool` carries `match` (subset or exact)."""

    tool: str
    match: JSONObject
    mode: str = "subset"

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> ArgsExpect:
        return cls(str(doc["tool"]), doc.get("match") or {}, str(doc.get("mode") or "subset"))


@dataclass(frozen=True, slots=True)
class ToolsExpect:
    """`expect.tools`: which tools, in what order, with which arguments, how often."""

    required: tuple[str, ...] | None = None
    forbidden: tuple[str, ...] | None = None
    allowed: tuple[str, ...] | None = None
    order: tuple[tuple[str, ...], ...] | None = None
    args: tuple[ArgsExpect, ...] | None = None
    max_calls: Mapping[str, int] | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> ToolsExpect:
        order, args, bounds = doc.get("order"), doc.get("args"), doc.get("max_calls")
        return cls(
            _names(doc.get("required")),
            _names(doc.get("forbidden")),
            _names(doc.get("allowed")),
            None if order is None else tuple(tuple(str(t) for t in chain) for chain in order),
            None if args is None else tuple(ArgsExpect.from_doc(a) for a in args),
            None if bounds is None else {str(k): int(v) for k, v in bounds.items()},
        )


@dataclass(frozen=True, slots=True)
class RetriesExpect:
    """`expect.retries`: at most `max` retries."""

    max: int | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> RetriesExpect:
        bound = doc.get("max")
        return cls(None if bound is None else int(bound))


@dataclass(frozen=True, slots=True)
class EgressExpect:
    """`expect.egress`: the hosts tools may reach."""

    allowed: tuple[str, ...] | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> EgressExpect:
        return cls(_names(doc.get("allowed")))


@dataclass(frozen=True, slots=True)
class SideEffectCount:
    """One `expect.side_effects[]` item: exactly `count` effects of kind `type`."""

    type: str
    count: int

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> SideEffectCount:
        return cls(str(doc["type"]), int(doc["count"]))


@dataclass(frozen=True, slots=True)
class IdempotencyExpect:
    """`expect.idempotency`: tools whose repeated calls must reuse their idempotency key."""

    tools: tuple[str, ...] | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> IdempotencyExpect:
        return cls(_names(doc.get("tools")))


@dataclass(frozen=True, slots=True)
class TerminalExpect:
    """`expect.terminal`: the status the run must end with."""

    status: str | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> TerminalExpect:
        return cls(doc.get("status"))


@dataclass(frozen=True, slots=True)
class SimilarExpect:
    """`output.similar`: a scorer rates the output at least `min_score` against `reference`."""

    reference: str
    min_score: float | None = None
    scorer: str | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> SimilarExpect:
        score = doc.get("min_score")
        return cls(
            str(doc.get("reference", "")),
            None if score is None else float(score),
            doc.get("scorer"),
        )


@dataclass(frozen=True, slots=True)
class OutputExpect:
    """`expect.output`: assertions on the final output text."""

    contains: tuple[str, ...] | None = None
    not_contains: tuple[str, ...] | None = None
    regex: tuple[str, ...] | None = None
    similar: SimilarExpect | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> OutputExpect:
        similar = doc.get("similar")
        return cls(
            _names(doc.get("contains")),
            _names(doc.get("not_contains")),
            _names(doc.get("regex")),
            None if similar is None else SimilarExpect.from_doc(similar),
        )


@dataclass(frozen=True, slots=True)
class Expect:
    """expected.yaml's `expect`: one field per key; None where the file has no such key."""

    errors: ErrorsExpect | None = None
    tools: ToolsExpect | None = None
    retries: RetriesExpect | None = None
    egress: EgressExpect | None = None
    side_effects: tuple[SideEffectCount, ...] | None = None
    idempotency: IdempotencyExpect | None = None
    terminal: TerminalExpect | None = None
    output: OutputExpect | None = None

    KEYS = (
        "errors",
        "tools",
        "retries",
        "egress",
        "side_effects",
        "idempotency",
        "terminal",
        "output",
    )

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Expect:
        """From a schema-checked `expect` mapping."""
        side = doc.get("side_effects")
        parts: dict[str, Any] = {
            key: _PARTS[key].from_doc(doc[key] or {})
            for key in cls.KEYS
            if key in _PARTS and key in doc
        }
        if side is not None:
            parts["side_effects"] = tuple(SideEffectCount.from_doc(s) for s in side)
        return cls(**parts)


_PARTS: dict[str, Any] = {
    "errors": ErrorsExpect,
    "tools": ToolsExpect,
    "retries": RetriesExpect,
    "egress": EgressExpect,
    "idempotency": IdempotencyExpect,
    "terminal": TerminalExpect,
    "output": OutputExpect,
}


@dataclass(frozen=True, slots=True)
class Trigger:
    """What the incident was: an error type, a terminal status, the seq that shows it."""

    error_type: str | None = None
    seq: int | None = None
    terminal_status: str | None = None
    note: str | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Trigger:
        return cls(
            doc.get("error_type"), doc.get("seq"), doc.get("terminal_status"), doc.get("note")
        )


@dataclass(frozen=True, slots=True)
class Stub:
    """A result (or error) for a tool call the recording lacks."""

    result: JSONValue = None
    error: ErrorInfo | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Stub:
        error = doc.get("error")
        return cls(doc.get("result"), None if error is None else ErrorInfo.parse(error))


@dataclass(frozen=True, slots=True)
class ScriptedAnswer:
    """A `continuation[]` item: a model answer for a call past the end of the recording."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> ScriptedAnswer:
        calls = tuple(ToolCall.from_doc(c) for c in doc.get("tool_calls") or ())
        return cls(doc.get("content"), calls)


@dataclass(frozen=True, slots=True)
class Expected:
    """One case's expected.yaml."""

    id: str
    status: str
    tier: str
    owner: str
    title: str | None = None
    tags: tuple[str, ...] = ()
    incomplete: tuple[str, ...] = ()
    mode: str | None = None
    """`replay.mode`: strict or lenient; None leaves it to the corpus or the command line."""
    request_fields: str | None = None
    """`replay.request_fields`: shared or all; None leaves it to the corpus (default shared)."""
    model: str | None = None
    """`replay.model`: recorded or live; None leaves it to the corpus or the command line."""
    live: JSONObject = field(default_factory=dict)
    """`replay.live`: the case's live-replay settings (`ignore_arguments`, `unmatched`)."""
    trigger: Trigger | None = None
    expect: Expect = field(default_factory=Expect)
    stubs: Mapping[str, Stub] = field(default_factory=dict)
    continuation: tuple[ScriptedAnswer, ...] = ()
    schema_version: int = 1
    derived_from: str | None = None
    """The source case's id, for a case `corpus vary` derived (a fault variant)."""

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Expected:
        """From a schema-checked expected.yaml document."""
        trigger = doc.get("trigger")
        return cls(
            id=doc["id"],
            status=doc["status"],
            tier=doc["tier"],
            owner=doc["owner"],
            title=doc.get("title"),
            tags=tuple(doc.get("tags") or ()),
            incomplete=tuple(doc.get("incomplete") or ()),
            mode=(doc.get("replay") or {}).get("mode"),
            request_fields=(doc.get("replay") or {}).get("request_fields"),
            model=(doc.get("replay") or {}).get("model"),
            live=dict((doc.get("replay") or {}).get("live") or {}),
            trigger=None if trigger is None else Trigger.from_doc(trigger),
            expect=Expect.from_doc(doc.get("expect") or {}),
            stubs={k: Stub.from_doc(v or {}) for k, v in (doc.get("stubs") or {}).items()},
            continuation=tuple(ScriptedAnswer.from_doc(c) for c in doc.get("continuation") or ()),
            schema_version=doc.get("schema_version", 1),
            derived_from=doc.get("derived_from"),
        )
