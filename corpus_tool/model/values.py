"""The small values every layer shares: the absent sentinel, errors, tool calls, model answers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final


class Absent:
    """The one marker for "this key is not there", distinct from a recorded null.

    A singleton: compare with `is ABSENT`. It never equals a value a file can hold (the
    string "<absent>" included), so a missing field cannot compare equal to a present one.
    """

    _instance: Absent | None = None

    def __new__(cls) -> Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<absent>"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "ABSENT"  # pickles as the module-level singleton


ABSENT: Final = Absent()

JSONValue = Any
"""A value as JSON holds it (dict, list, str, int, float, bool, None). Payloads the trace
model does not interpret — messages, arguments, results, `extra` — stay in this form."""

JSONObject = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """An error as a trace records it: its type (exception class or code) and message."""

    type: str
    message: str

    @classmethod
    def parse(cls, raw: Any) -> ErrorInfo:
        """`"Type: message"`, `{type, message}` or anything else, as an ErrorInfo."""
        if isinstance(raw, Mapping):
            return cls(str(raw.get("type") or "Error"), str(raw.get("message") or ""))
        text = str(raw)
        head, sep, tail = text.partition(":")
        if sep and head and " " not in head.strip():
            return cls(head.strip(), tail.strip())
        return cls("Error", text)

    def to_doc(self) -> dict[str, str]:
        """The trace.yaml form, `{type, message}`."""
        return {"type": self.type, "message": self.message}


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 timestamp (with `Z` accepted) as an aware or naive datetime, or None."""
    if not isinstance(value, str):
        return None
    try:
        # Python 3.10's fromisoformat does not read a `Z` suffix
        return datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None


def parse_error(raw: Any) -> dict[str, str]:
    """`"Type: message"`, `{type, message}` or anything else, as trace.yaml's `{type, message}`."""
    return ErrorInfo.parse(raw).to_doc()


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the model asked for: its id (linking it to the tool_call event), name,
    and arguments."""

    id: str | None
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> ToolCall:
        """From trace.yaml's `response.tool_calls[]` form."""
        return cls(doc.get("id"), str(doc["name"]), dict(doc.get("arguments") or {}))

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form: `id` always written, null when the source had none."""
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a provider counted for one model call."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """What a model answered: text, tool calls, or both; a live model also fills `model` (the
    id the provider answered with) and `usage` when the provider says them."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    model: str | None = None
    usage: Usage | None = None

    def __post_init__(self) -> None:
        # callers pass lists; a tuple keeps the value frozen
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> ModelResponse:
        """From trace.yaml's `response` form."""
        return cls(
            doc.get("content"),
            tuple(ToolCall.from_doc(c) for c in doc.get("tool_calls") or ()),
            doc.get("finish_reason"),
        )

    def to_doc(self) -> dict[str, Any]:
        """The trace.yaml form: `content` always, `tool_calls` and `finish_reason` when set."""
        out: dict[str, Any] = {"content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [c.to_doc() for c in self.tool_calls]
        if self.finish_reason is not None:
            out["finish_reason"] = self.finish_reason
        return out
