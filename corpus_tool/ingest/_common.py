"""Mapping helpers every importer shares: events, call linking, the trace body.

Importers differ in how they find facts; once found, the facts become trace events here, so
every format yields the same shapes (OpenAI-style chat messages, `{id, name, arguments}` tool
calls, `{type, message}` errors) and feeds the same completeness check.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from corpus_tool.files import canonical_json

# importers reach every shared helper through this module
from corpus_tool.ingest.chat import (
    message,
    messages,
    responses_output,
    text_of,
    tool_call,
    tool_calls,
)
from corpus_tool.ingest.values import (
    MISSING,
    arguments,
    error,
    iso_from_epoch,
    iso_from_ns,
    loads_maybe,
    obj,
    opt_id,
    parse_time_key,
)

__all__ = [
    "MISSING", "arguments", "body", "derived_config_hash", "error", "error_event",
    "first_user_text", "handoff_event", "iso_from_epoch", "iso_from_ns", "last_answer",
    "link_ids", "loads_maybe", "message", "messages", "model_event", "models_of", "number",
    "obj", "opt_id", "parse_time_key", "responses_output", "terminal_from", "text_of",
    "tool_call", "tool_calls", "tool_event",
]  # fmt: skip


def model_event(
    model: str | None,
    request_messages: list[dict[str, Any]],
    content: str | None,
    calls: list[dict[str, Any]],
    **more: Any,
) -> dict[str, Any]:
    """A model_call event (seq is set when the run is assembled)."""
    request: dict[str, Any] = {"messages": request_messages}
    more["temperature"] = _number(more.get("temperature"))
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


def _number(value: Any) -> float | None:
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
    elif result is not MISSING:
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


def link_ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give a requested call without id the id of the tool call that answered it.

    Some frameworks (Google ADK) assign call ids client-side: the model's request carries none,
    the tool span does. The first later call of that tool with an unclaimed id answered it.
    """
    claimed = {
        call.get("id")
        for e in events
        if e["type"] == "model_call"
        for call in e["response"].get("tool_calls") or []
    }
    _link_answers(events)
    for i, event in enumerate(events):
        if event["type"] != "model_call":
            continue
        for call in event["response"].get("tool_calls") or []:
            if call.get("id") is not None:
                continue
            answer = next(
                (
                    e
                    for e in events[i + 1 :]
                    if e["type"] == "tool_call"
                    and e["tool"] == call["name"]
                    and e.get("call_id") not in claimed
                ),
                None,
            )
            if answer is not None:
                call["id"] = answer["call_id"]
                claimed.add(answer["call_id"])
    return events


def _link_answers(events: list[dict[str, Any]]) -> None:
    """A tool call recorded without id answers the earliest open request of its name."""
    open_requests: list[dict[str, Any]] = []
    answered = {e.get("call_id") for e in events if e["type"] == "tool_call"}
    for event in events:
        if event["type"] == "model_call":
            calls = event["response"].get("tool_calls") or []
            open_requests.extend(c for c in calls if c.get("id") and c["id"] not in answered)
        elif event["type"] == "tool_call" and event.get("call_id") is None:
            match = next((r for r in open_requests if r["name"] == event["tool"]), None)
            if match is not None:
                event["call_id"] = match["id"]
                open_requests.remove(match)


def number(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events with seq 1..n in the order given, seq first for readable YAML."""
    return [{"seq": i, **e} for i, e in enumerate(events, start=1)]


def models_of(events: list[dict[str, Any]]) -> list[str]:
    """Model ids used, sorted."""
    return sorted({e["model"] for e in events if e["type"] == "model_call" and e.get("model")})


def derived_config_hash(events: list[dict[str, Any]]) -> str | None:
    """A fingerprint of the agent's configuration as the run shows it.

    Formats that record no agent version still show what configures the agent: the system
    prompt, the tools offered and the models. Their hash lets drift be reported.
    """
    system = [
        m.get("content")
        for e in events
        if e["type"] == "model_call"
        for m in e["request"]["messages"][:2]
        if isinstance(m, dict) and m.get("role") in ("system", "developer")
    ]
    tools = sorted({str(e.get("tool")) for e in events if e["type"] == "tool_call"})
    facts = {"system": system[:1], "tools": tools, "models": models_of(events)}
    if not any(facts.values()):
        return None
    blob = canonical_json(facts)
    return "derived-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def body(
    events: list[dict[str, Any]],
    *,
    started_at: str | None,
    agent: dict[str, Any],
    user_message: str | None,
    terminal: dict[str, Any],
    extra: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    conversation: list[Any] | None = None,
) -> dict[str, Any]:
    """A trace body; an agent without version gets a config hash derived from the run."""
    numbered = number(link_ids(plain(events)))
    facts = {k: v for k, v in agent.items() if v is not None}
    if not facts.get("version") and not facts.get("config_hash"):
        derived = derived_config_hash(numbered)
        if derived:
            facts["config_hash"] = derived
    out: dict[str, Any] = {
        "recorded": {"started_at": started_at, "agent": facts, "models": models_of(numbered)},
        "input": {
            "user_message": user_message,
            "context": context or {},
            "conversation": plain(conversation or []),
        },
        "events": numbered,
        "terminal": terminal,
    }
    if extra:
        out["extra"] = plain({k: v for k, v in extra.items() if v not in (None, {}, [])})
        if not out["extra"]:
            del out["extra"]
    return out


def first_user_text(events: list[dict[str, Any]]) -> str | None:
    """The first user message the first model call was sent: the run's input."""
    for event in events:
        if event["type"] != "model_call":
            continue
        for msg in event["request"]["messages"]:
            if isinstance(msg, dict) and msg.get("role") == "user":
                return text_of(msg.get("content")) or json.dumps(msg.get("content"))
        return None
    return None


def last_answer(events: list[dict[str, Any]]) -> str | None:
    """The text of the last model answer that asked for no tool: the run's output."""
    for event in reversed(events):
        if event["type"] == "model_call" and not event["response"].get("tool_calls"):
            content = event["response"].get("content")
            return content if isinstance(content, str) else None
    return None


def terminal_from(
    events: list[dict[str, Any]], failed: bool, output: Any = MISSING
) -> dict[str, Any]:
    """`failed` when the run errored, else `succeeded` with the last answer as output."""
    answer = last_answer(events) if output is MISSING else output
    if failed:
        return {"status": "failed", "output": answer}
    if answer is None and not events:
        return {"status": "unknown", "output": None}
    return {"status": "succeeded", "output": answer}
