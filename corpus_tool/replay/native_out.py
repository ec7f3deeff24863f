"""Writing the native incident format (DESIGN.md) from a runtime's trace-form events."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from corpus_tool.replay.record import RecordMeta

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
    events: list[dict[str, Any]],
    terminal: Mapping[str, Any],
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
    native.append({"seq": len(events) + 1, "type": "final", **dict(terminal)})
    doc["events"] = native
    return doc


def _event(event: dict[str, Any]) -> dict[str, Any]:
    kind = event["type"]
    native_kind = "llm_request" if kind == "model_call" else kind
    out: dict[str, Any] = {"seq": event["seq"], "type": native_kind}
    if kind == "model_call":
        out.update(_model_call(event))
    elif kind == "tool_call":
        out.update(_tool_call(event))
    else:
        out.update({k: v for k, v in event.items() if k not in ("seq", "type", "timestamp")})
    out["timestamp"] = utc(event["timestamp"])
    if event.get("duration_ms") is not None:
        out["durationMs"] = event["duration_ms"]
    return out


def _model_call(event: dict[str, Any]) -> dict[str, Any]:
    request = event["request"]
    out: dict[str, Any] = {"model": event["model"], "messages": request["messages"]}
    for key in ("tools", "temperature"):
        if key in request:
            out[key] = request[key]
    for key, value in (request.get("params") or {}).items():
        out[_PARAMS.get(key, key)] = value
    response = event["response"]
    native: dict[str, Any] = {"content": response.get("content")}
    native["toolCalls"] = response.get("tool_calls") or []
    if response.get("finish_reason") is not None:
        native["finishReason"] = response["finish_reason"]
    out["response"] = native
    return out


def _tool_call(event: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": event["tool"]}
    if event.get("call_id") is not None:
        out["callId"] = event["call_id"]
    out["input"] = event["arguments"]
    if "error" in event:
        out["error"] = event["error"]
    else:
        out["result"] = event.get("result")
    if event.get("egress") is not None:
        out["egress"] = event["egress"]
    if event.get("idempotency_key") is not None:
        out["idempotencyKey"] = event["idempotency_key"]
    return out
