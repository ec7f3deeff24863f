"""Builders for replayed trajectories in trace.yaml event form, shared by the grade tests."""

from __future__ import annotations

from typing import Any


def call(
    seq: int,
    tool: str,
    arguments: dict[str, Any] | None = None,
    *,
    error: str | None = None,
    egress: str | None = None,
    key: str | None = None,
) -> dict[str, Any]:
    """A tool_call event; `error` is `"Type"` and makes it a failed call."""
    event: dict[str, Any] = {"seq": seq, "type": "tool_call", "tool": tool}
    event["arguments"] = arguments if arguments is not None else {}
    if error:
        event["error"] = {"type": error, "message": f"{error} in {tool}"}
    else:
        event["result"] = {"ok": True}
    if egress:
        event["egress"] = egress
    if key:
        event["idempotency_key"] = key
    return event


def error(seq: int, type_: str, node: str | None = "calculator") -> dict[str, Any]:
    """An error event raised by the agent's own code."""
    event: dict[str, Any] = {"seq": seq, "type": "error"}
    event["error"] = {"type": type_, "message": "division by zero"}
    if node:
        event["node"] = node
    return event


def retry(seq: int, of: int, attempt: int | None = 2) -> dict[str, Any]:
    """A retry event."""
    return {"seq": seq, "type": "retry", "of": of, "attempt": attempt}


def effect(seq: int, kind: str) -> dict[str, Any]:
    """A side_effect event."""
    return {"seq": seq, "type": "side_effect", "kind": kind, "target": "O-1", "data": {}}


def model(seq: int, content: str | None = None) -> dict[str, Any]:
    """A model_call event (graders ignore its content)."""
    return {
        "seq": seq,
        "type": "model_call",
        "model": "gpt-test",
        "request": {"messages": [{"role": "user", "content": "hi"}]},
        "response": {"content": content},
    }


def end(status: str = "succeeded", output: Any = "Refund R1 submitted.") -> dict[str, Any]:
    """The terminal mapping `{status, output}`."""
    return {"status": status, "output": output}


def trace_document(events: list[dict[str, Any]], terminal: dict[str, Any]) -> dict[str, Any]:
    """A whole trace.yaml document around events, to validate them against the schema."""
    return {
        "schema_version": 1,
        "id": "t",
        "source": {"format": "native", "sha256": "0" * 64},
        "recorded": {"started_at": "2025-06-01T10:00:00Z", "agent": {}, "models": []},
        "input": {},
        "events": events,
        "terminal": terminal,
        "redaction": {"policy": 1, "key_id": "k-000000000000", "replaced": 0},
    }


def expected_document(expect: dict[str, Any]) -> dict[str, Any]:
    """A whole expected.yaml document around an `expect` mapping."""
    return {
        "schema_version": 1,
        "id": "t",
        "status": "active",
        "tier": "fast",
        "owner": "team",
        "expect": expect,
    }
