"""The shop's services as the framework example agents call them: orders and payments.

In production these would be HTTP clients; here they are an in-memory stand-in that the
recording script (`record_framework_incidents.py`) fills and makes fail on cue. Replay never
calls them: the adapters answer every tool call from the recording.
"""

from __future__ import annotations

from typing import Any

ORDERS: dict[str, dict[str, Any]] = {}
FAILURES: dict[str, list[Exception]] = {}
"""Per operation, the errors its next calls raise (the payments gateway timing out)."""
_REFUNDS: dict[str, str] = {}


def get_order(order_id: str) -> dict[str, Any]:
    """An order, as the orders service returns it."""
    _maybe_fail("get_order")
    return dict(ORDERS[order_id])


def create_refund(order_id: str, amount_cents: int) -> dict[str, Any]:
    """A refund through the payments gateway (one per order)."""
    _maybe_fail("create_refund")
    refund_id = _REFUNDS.setdefault(order_id, f"R{900 + len(_REFUNDS)}")
    return {"refund_id": refund_id, "order_id": order_id, "amount_cents": amount_cents,
            "state": "pending"}  # fmt: skip


def reset(orders: dict[str, dict[str, Any]], failures: dict[str, list[Exception]]) -> None:
    """Start a story: these orders, these failures to come."""
    ORDERS.clear()
    ORDERS.update(orders)
    FAILURES.clear()
    FAILURES.update({k: list(v) for k, v in failures.items()})
    _REFUNDS.clear()


def _maybe_fail(operation: str) -> None:
    planned = FAILURES.get(operation)
    if planned:
        raise planned.pop(0)
