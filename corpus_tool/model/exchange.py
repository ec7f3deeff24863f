"""One provider call as a recording proxy saw it (`corpus record`): what the agent sent, what
came back. The proxy (`replay/doubles/proxy.py`) makes them; `ingest/exchanges.py` turns them
into a native incident."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RecordedExchange:
    """One provider call as it went: the API, the path under its base URL, both bodies."""

    api: str
    """`openai` or `anthropic`."""
    path: str
    request: Any
    status: int
    response: Any = None
    """The JSON answer (None for a stream, or a body that is no JSON)."""
    events: tuple[Any, ...] = ()
    """The `data:` events of an event-stream answer, parsed, in order."""
    started_at: float = 0.0
    """When the request arrived, in seconds since the epoch."""
    duration_ms: float = 0.0


def function_tool(tool: Any) -> Any:
    """An Anthropic tool `{name, description, input_schema}` in the native (OpenAI) form
    `{type: function, function: {name, description, parameters}}`: how a recording keeps it
    (`ingest/exchanges.py`) and how the Anthropic double hands a request to replay, so the two
    compare alike. A server tool (web search, ...) as sent."""
    if not isinstance(tool, Mapping) or "input_schema" not in tool:
        return tool
    function: dict[str, Any] = {"name": tool.get("name")}
    if tool.get("description") is not None:
        function["description"] = tool["description"]
    function["parameters"] = tool["input_schema"]
    return {"type": "function", "function": function}
