"""Writing the native incident format (README, "The native incident format") from a run's
events: what record mode writes and `corpus add` reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from corpus_tool.model.events import Event, ModelCallEvent, ToolCallEvent
from corpus_tool.model.trace import Terminal


@dataclass(frozen=True)
class RecordMeta:
    """Facts about the run that the incident carries (the native format's top-level keys).

    `agent` uses the native keys: name, version, configHash, promptVersion, toolSchemaHash.
    With `started_at` set the clock is frozen there and moves only by call durations, which
    makes a recording with fakes byte-stable; without it the real clock runs.
    """

    trace_id: str
    agent: Mapping[str, str] = field(default_factory=dict)
    session_id: str | None = None
    started_at: datetime | None = None
    timezone: str | None = None
    seed: int | None = None
    app_version: str | None = None


# trace.yaml request params -> native camelCase (the inverse of the native importer's table)
_PARAMS = {
    "max_tokens": "maxTokens",
    "top_p": "topP",
    "tool_choice": "toolChoice",
    "response_format": "responseFormat",
}
_COMMON = {"seq": "seq", "node": "node", "timestamp": "timestamp", "duration_ms": "durationMs"}


def utc(value: datetime | str) -> str:
    """An ISO 8601 UTC stamp with milliseconds and a `Z`."""
    when = datetime.fromisoformat(value) if isinstance(value, str) else value
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def incident(
    meta: RecordMeta,
    start: datetime,
    seed: int,
    case_input: Mapping[str, Any],
    events: list[Event],
    terminal: Terminal,
) -> dict[str, Any]:
    """The native incident document of one recorded run."""
    doc: dict[str, Any] = {"schemaVersion": "1.0", "traceId": meta.trace_id}
    if meta.session_id is not None:
        doc["sessionId"] = meta.session_id
    doc["startedAt"] = utc(start)
    if meta.timezone is not None:
        doc["timezone"] = meta.timezone
    doc["seed"] = seed
    if meta.app_version is not None:
        doc["appVersion"] = meta.app_version
    doc["agent"] = dict(meta.agent)
    doc["input"] = {
        "userMessage": case_input.get("user_message"),
        "context": dict(case_input.get("context") or {}),
        "conversation": list(case_input.get("conversation") or []),
    }
    native = [_event(e) for e in events]
    native.append({"seq": len(events) + 1, "type": "final", **terminal.to_doc()})
    doc["events"] = native
    return doc


def _event(event: Event) -> dict[str, Any]:
    native_kind = "llm_request" if isinstance(event, ModelCallEvent) else event.type
    out: dict[str, Any] = {"seq": event.seq, "type": native_kind}
    if isinstance(event, ModelCallEvent):
        out.update(_model_call(event))
    elif isinstance(event, ToolCallEvent):
        out.update(_tool_call(event))
    else:
        doc = event.to_doc()
        extra = doc.pop("extra", {})  # the native format keeps unknown keys inline
        out.update({k: v for k, v in doc.items() if k not in _TRACE_ONLY})
        out.update(extra)
    if event.timestamp is not None:
        out["timestamp"] = utc(event.timestamp)
    if event.duration_ms is not None:
        out["durationMs"] = event.duration_ms
    return out


_TRACE_ONLY = ("seq", "type", "timestamp", "duration_ms")


def _model_call(event: ModelCallEvent) -> dict[str, Any]:
    request = event.request.to_doc()
    out: dict[str, Any] = {"model": event.model, "messages": request["messages"]}
    for key in ("tools", "temperature"):
        if key in request:
            out[key] = request[key]
    for key, value in (request.get("params") or {}).items():
        out[_PARAMS.get(key, key)] = value
    response = event.response
    native: dict[str, Any] = {"content": response.content}
    native["toolCalls"] = [c.to_doc() for c in response.tool_calls]
    if response.finish_reason is not None:
        native["finishReason"] = response.finish_reason
    out["response"] = native
    return out


def _tool_call(event: ToolCallEvent) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": event.tool}
    if event.call_id is not None:
        out["callId"] = event.call_id
    out["input"] = dict(event.arguments)
    if event.error is not None:
        out["error"] = event.error.to_doc()
    else:
        out["result"] = event.result
    if event.egress is not None:
        out["egress"] = event.egress
    if event.idempotency_key is not None:
        out["idempotencyKey"] = event.idempotency_key
    return out
