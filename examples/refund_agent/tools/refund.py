"""Refund tools: what the model is offered, how calls are made safe, and the real clients.

The real clients talk HTTP to internal services. Replay never calls them: the agent reaches
tools only through `rt.tool`, and corpus-tool answers from the recording.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from corpus_tool import Runtime, ToolCall, ToolError

MODEL = "gpt-4.1-2025-04-14"
SPECS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("get_order", "create_refund", "check_refund", "cancel_refund")
]
# Transient failures worth one more attempt. create_refund is safe to retry only because
# every attempt carries the same idempotency key (the fix of create-refund-lost-retry).
RETRYABLE = {"TimeoutError", "ConnectionResetError"}
MAX_ATTEMPTS = 2


def prepared(call: ToolCall) -> dict[str, Any]:
    """The arguments to send: create_refund always carries an idempotency key."""
    args = dict(call.arguments)
    if call.name == "create_refund":
        args.setdefault("idempotency_key", f"rf-{args.get('order_id')}-1")
    return args


def call_tool(rt: Runtime, call: ToolCall) -> Any:
    """Call a tool, retrying a transient failure once; a final failure is returned as data."""
    args = prepared(call)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            result = rt.tool(call.name, args)
        except ToolError as err:
            if err.type in RETRYABLE and attempt < MAX_ATTEMPTS:
                rt.emit("retry", of=err.seq, attempt=attempt + 1)
                continue
            return {"error": f"{err.type}: {err.message}"}
        if call.name == "create_refund":
            data = {"refund_id": result.get("refund_id"), "amount": args.get("amount")}
            rt.emit("side_effect", kind="refund_created", target=args.get("order_id"), data=data)
        return result
    return {"error": "unreachable"}


# -- production clients (never reached in replay) -------------------------------------------
def _post(url: str, payload: dict[str, Any]) -> Any:
    body = json.dumps(payload).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def get_order(args: dict[str, Any]) -> Any:
    return _post("https://orders.internal/get", args)


def create_refund(args: dict[str, Any]) -> Any:
    return _post("https://payments.internal/refunds", args)


def check_refund(args: dict[str, Any]) -> Any:
    return _post("https://payments.internal/refunds/status", args)


def cancel_refund(args: dict[str, Any]) -> Any:
    return _post("https://payments.internal/refunds/cancel", args)


CLIENTS = {
    "get_order": get_order,
    "create_refund": create_refund,
    "check_refund": check_refund,
    "cancel_refund": cancel_refund,
}
EGRESS = {
    "get_order": "orders.internal",
    "create_refund": "payments.internal",
    "check_refund": "payments.internal",
    "cancel_refund": "payments.internal",
}
