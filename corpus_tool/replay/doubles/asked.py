"""What a provider request asks and what the recording answers, in the native format's terms.

Both HTTP doubles turn the request body into a `ProviderRequest` (native messages and tools,
the model, the temperature, the other fields as `params`) and answer from a `ProviderAnswer`
(the recorded response, the model id, the recorded usage), so that strict and lenient replay
compare an SDK's request exactly as they compare what an agent hands `rt.model`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from corpus_tool.model.values import ModelResponse

PIECE = 16
"""Characters per streamed delta: content and tool-call arguments arrive in pieces, as a
provider sends them, and the SDK's accumulator joins them back."""


class BadRequest(Exception):
    """A request body the double cannot read (answered with HTTP 400, naming what is wrong)."""


@dataclass(frozen=True)
class ProviderRequest:
    """A provider request in the native format's terms."""

    messages: list[Any]
    tools: list[Any] | None
    model: str | None
    temperature: float | None
    params: dict[str, Any] = field(default_factory=dict)
    stream: bool = False
    include_usage: bool = False


@dataclass(frozen=True)
class ProviderAnswer:
    """The recorded answer to send back: response, model id, usage, and the event's seq."""

    response: ModelResponse
    model: str
    usage: Mapping[str, Any] | None
    seq: int
    created: int = 0


def arguments(text: Any, where: str) -> dict[str, Any]:
    """Tool-call arguments as parsed JSON (never the text an SDK serialized)."""
    if isinstance(text, Mapping):
        return dict(text)
    if text in (None, ""):
        return {}
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        raise BadRequest(f"{where}: the tool call's arguments are not JSON") from None
    if not isinstance(value, dict):
        raise BadRequest(f"{where}: the tool call's arguments are not a JSON object")
    return value


def tokens(usage: Mapping[str, Any] | None, *names: str) -> int:
    """The first of `names` the recorded usage holds, as an int (0 when none)."""
    for name in names:
        value = (usage or {}).get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def pieces(text: str) -> list[str]:
    """`text` cut into stream deltas (one empty piece for empty text)."""
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)] or [""]


def without_none(message: Mapping[str, Any], keep: tuple[str, ...] = ()) -> dict[str, Any]:
    """A message without the null fields an SDK fills in (`refusal`, `audio`, ...)."""
    return {k: v for k, v in message.items() if v is not None or k in keep}


def reported(messages: list[Any]) -> list[str]:
    """The tool-call ids whose results the agent reports (native `{role: tool}` messages), in
    request order."""
    return [
        str(m["tool_call_id"])
        for m in messages
        if isinstance(m, Mapping) and m.get("role") == "tool" and m.get("tool_call_id")
    ]


def echoed(messages: list[Any]) -> dict[str, Mapping[str, Any]]:
    """The tool calls the agent says the model asked for (its assistant messages), by id."""
    found: dict[str, Mapping[str, Any]] = {}
    for message in messages:
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                if isinstance(call, Mapping):
                    found[str(call.get("id"))] = call
    return found
