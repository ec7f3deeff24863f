"""Trace events built from facts an importer found: every format yields the same shapes.

OpenAI-style chat messages, `{id, name, arguments}` tool calls and `{type, message}` errors,
so every format feeds the same completeness check.
"""

from __future__ import annotations

import json
from typing import Any

from corpus_tool.model.values import ABSENT


def model_event(
    model: str | None,
    request_messages: list[dict[str, Any]],
    content: str | None,
    calls: list[dict[str, Any]],
    **more: Any,
) -> dict[str, Any]:
    """A model_call event (seq is set when the run is assembled)."""
    request: dict[str, Any] = {"messages": request_messages}
    more["temperature"] = _float(more.get("temperature"))
    for key in ("tools", "temperature", "params"):
        if more.get(key) is not None:
            request[key] = more.pop(key)
        more.pop(key, None)
    response: dict[str, Any] = {"content": content}
    if calls:
        response["tool_calls"] = calls
    if more.get("finish_reason") is not None:
        response["finish_reason"] = str(more["finish_reason"])
    more.pop("finish_reason", None)
    event: dict[str, Any] = {"type": "model_call"}
    if model:
        event["model"] = model
    event.update(request=request, response=response)
    return _with_common(event, more)


def _float(value: Any) -> float | None:
    """A temperature some exporters write as text ('0.7')."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    try:
        return float(value) if isinstance(value, str) else None
    except ValueError:
        return None


def tool_event(
    tool: str, call_id: str | None, args: dict[str, Any], result: Any, **more: Any
) -> dict[str, Any]:
    """A tool_call event: `result`, or `error` when `more` has one (never both)."""
    event: dict[str, Any] = {"type": "tool_call", "tool": tool, "call_id": call_id}
    event["arguments"] = args
    err = more.pop("error", None)
    if err is not None:
        event["error"] = err
    elif result is not ABSENT:
        event["result"] = result
    return _with_common(event, more)


def error_event(err: dict[str, str], **more: Any) -> dict[str, Any]:
    """An error event raised outside a tool call."""
    return _with_common({"type": "error", "error": err}, more)


def handoff_event(source: str | None, target: str, **more: Any) -> dict[str, Any]:
    """Control passed from one agent to another."""
    return _with_common({"type": "handoff", "from": source, "to": target}, more)


_COMMON = ("node", "timestamp", "duration_ms", "parent")
_BY_TYPE = {"model_call": ("usage",), "error": ("tool", "stack")}


def _with_common(event: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    for key in _COMMON + _BY_TYPE.get(event["type"], ()):
        value = more.pop(key, None)
        if value is not None:
            event[key] = value
    extra = {k: v for k, v in (more.pop("extra", None) or {}).items() if v is not None}
    extra.update({k: v for k, v in more.items() if v is not None})
    if extra:
        event["extra"] = extra
    return event


def plain(value: Any) -> Any:
    """JSON-shaped data with no object shared between two places.

    Importers reuse message and argument objects (a transcript's history in every request);
    shared objects would come out of the YAML dumper as `&id001` aliases, and a later pass
    (redaction) would see one object where the trace shows two values.
    """
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))
