"""The values agent code sees: model responses, tool calls, tool errors."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model asked for."""

    id: str | None
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelResponse:
    """What a model answered: text, tool calls, or both."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None

    def __post_init__(self) -> None:
        # callers pass lists; a tuple keeps the value frozen
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))


class ToolError(Exception):
    """A tool failed: `type` (exception class or code) and `message`, as recorded."""

    def __init__(self, type: str, message: str, seq: int | None = None):
        super().__init__(f"{type}: {message}")
        self.type = type
        self.message = message
        self.seq = seq


def plain(value: Any) -> Any:
    """A deep copy in JSON shapes (tuples become lists), so later mutation cannot reach it."""
    if isinstance(value, Mapping):
        return {text(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, str):
        return text(value)
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return copy.deepcopy(value)


def text(value: Any) -> str:
    """str(value) that UTF-8 can encode: a lone surrogate from agent code becomes `\\udXXX`.

    Otherwise the report, the results JSON and the JUnit file all fail at their first write.
    """
    shown = str(value)
    try:
        shown.encode("utf-8")
    except UnicodeEncodeError:
        return shown.encode("utf-8", "backslashreplace").decode("utf-8")
    return shown


def response_from(data: Mapping[str, Any]) -> ModelResponse:
    """A ModelResponse from its trace.yaml form (`content`, `tool_calls`, `finish_reason`)."""
    calls: Iterable[Mapping[str, Any]] = data.get("tool_calls") or []
    return ModelResponse(
        content=data.get("content"),
        tool_calls=tuple(
            ToolCall(c.get("id"), str(c["name"]), plain(c.get("arguments") or {})) for c in calls
        ),
        finish_reason=data.get("finish_reason"),
    )


def response_dict(response: ModelResponse) -> dict[str, Any]:
    """The trace.yaml form of a ModelResponse."""
    out: dict[str, Any] = {"content": response.content}
    if response.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "name": c.name, "arguments": plain(c.arguments)}
            for c in response.tool_calls
        ]
    if response.finish_reason is not None:
        out["finish_reason"] = response.finish_reason
    return out
