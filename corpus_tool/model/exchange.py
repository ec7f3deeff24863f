"""One provider call as a recording proxy saw it (`corpus record`): what the agent sent, what
came back. The proxy (`replay/doubles/proxy.py`) makes them; `ingest/exchanges.py` turns them
into a native incident."""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


RESPONSES_OWN = frozenset(
    {"input", "instructions", "tools", "model", "temperature", "stream", "stream_options"}
)
"""A Responses request's fields held elsewhere in the native event, or transport
(`stream_options`: how the events come): never compared or recorded as parameters."""


def responses_messages(
    instructions: Any,
    items: list[Any],
    calls: Callable[[Mapping[str, Any], int], list[dict[str, Any]]],
    odd: Callable[[Any, int], dict[str, Any]],
) -> list[dict[str, Any]]:
    """A Responses request's instructions and input items as native chat messages: the one
    reading of them, so a recording (`corpus record`) and the Responses double compare alike.
    `calls` reads a `function_call` item's tool calls, `odd` an item that is no object (the
    recording keeps it as a user message, the double refuses it)."""
    out: list[dict[str, Any]] = []
    if isinstance(instructions, str):
        out.append({"role": "system", "content": instructions})
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            out.append(odd(item, index))
            continue
        kind = item.get("type", "message")
        if kind == "function_call":
            last = out[-1] if out else None
            if last is not None and last.get("role") == "assistant":
                last.setdefault("tool_calls", []).extend(calls(item, index))
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": calls(item, index)})
        elif kind == "function_call_output":
            given = item.get("output")
            text = given if isinstance(given, str) else _responses_text(given)
            out.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": text})
        elif kind == "message":
            out.append({"role": item.get("role"), "content": _responses_text(item.get("content"))})
        else:
            out.append(dict(item))  # reasoning and other items: as sent
    return out


def responses_tool(tool: Any) -> Any:
    """A Responses function tool `{type: function, name, description, parameters}` in the
    native form, as the recording keeps it and the Responses double compares it; a built-in
    tool (web search, file search, ...) as sent."""
    if not isinstance(tool, Mapping) or tool.get("type") != "function":
        return tool
    function: dict[str, Any] = {"name": tool.get("name")}
    if tool.get("description") is not None:
        function["description"] = tool["description"]
    function["parameters"] = tool.get("parameters") or {}
    return {"type": "function", "function": function}


def _responses_text(content: Any) -> Any:
    """A Responses content list's text parts joined (None when it holds none)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, Mapping) and "text" in p]
        return "".join(parts) if parts else None
    return content
