"""Record examples/incidents/*.json by running the example agent against a fake world.

    python examples/record_incidents.py [--out examples/incidents]

Each story is a fake model (a scripted stand-in for the LLM that reads the conversation) and
fake tools (dicts instead of the orders and payments services). corpus-tool's record mode
wraps them exactly as it would wrap the real ones, so every incident is what the agent
produces. Clock and durations are fixed, so re-running changes no byte.

refund-wrong-unit is recorded with the prompt set of its time (refund-v12, before "amounts
are in cents"); the agent today runs refund-v13, so strict replay of that case diverges at
the first model request: the example corpus's demo of what a regression looks like.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from corpus_tool import ModelResponse, RecordMeta, ToolCall, ToolError, record  # noqa: E402
from examples.refund_agent import agent  # noqa: E402
from examples.refund_agent.tools.refund import EGRESS  # noqa: E402

EGRESS_ALL = {
    **EGRESS,
    "search_inventory": "inventory.internal",
    "get_sales": "inventory.internal",
    "notify_operator": "ops.internal",
}
MODEL_MS = 400.0


# -- the fake model -------------------------------------------------------------------------
def fake_model(messages: list[dict[str, Any]], **request: Any) -> ModelResponse:
    """A scripted LLM: decides from the conversation, the way the incidents' model did."""
    system, user = messages[0]["content"], messages[1]["content"]
    tool_messages = [m for m in messages if m["role"] == "tool"]
    call_no = 1 + sum(len(m.get("tool_calls") or []) for m in messages if m["role"] == "assistant")
    if not tool_messages:
        return ModelResponse(None, tuple(_first_calls(user, request, call_no)))
    last = json.loads(tool_messages[-1]["content"])
    if "amount_cents" in last and last.get("status") == "delivered":
        # the incident's bug: without "amounts are in cents" the model read the display price
        amount = last["amount_cents"] if "in cents" in system else int(float(last["price_display"]))
        args = {"order_id": last["order_id"], "amount": amount}
        return ModelResponse(None, (ToolCall(f"c{call_no}", "create_refund", args),))
    return ModelResponse(_final_text(last, messages))


def _first_calls(user: str, request: dict[str, Any], no: int) -> list[ToolCall]:
    offered = {t["function"]["name"] for t in request.get("tools") or []}
    if "search_inventory" in offered:
        sku = re.search(r"[A-Z]\d+", user).group(0)  # type: ignore[union-attr]
        return [
            ToolCall(f"c{no}", "search_inventory", {"sku": sku}),
            ToolCall(f"c{no + 1}", "get_sales", {"sku": sku, "days": 30}),
        ]
    refund = re.search(r"R\d+", user)
    if refund and "cancel" in user.lower():
        return [ToolCall(f"c{no}", "cancel_refund", {"refund_id": refund.group(0)})]
    if refund:
        return [ToolCall(f"c{no}", "check_refund", {"refund_id": refund.group(0)})]
    order = re.search(r"O-\d+", user).group(0)  # type: ignore[union-attr]
    return [ToolCall(f"c{no}", "get_order", {"order_id": order})]


def _final_text(last: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    if "error" in last:
        return "Sorry, the payments service is not answering; please try again later."
    state = last.get("state")
    if state == "pending":
        amount = _asked_amount(messages)
        return (
            f"Your refund {last['refund_id']} of {amount / 100:.2f} CNY has been submitted; "
            "it reaches your account in 3-5 days."
        )
    if state == "settled":
        return f"Refund {last['refund_id']} was settled on {last['settled_at'][:10]}."
    return f"Refund {last['refund_id']} is {state}."


def _asked_amount(messages: list[dict[str, Any]]) -> int:
    for message in reversed(messages):
        for call in message.get("tool_calls") or []:
            if call["name"] == "create_refund":
                return int(call["arguments"]["amount"])
    return 0


# -- the fake world -------------------------------------------------------------------------
@dataclass
class World:
    """Orders, refunds and stock of one story, plus the failures it injects."""

    orders: dict[str, dict[str, Any]] = field(default_factory=dict)
    refunds: dict[str, dict[str, Any]] = field(default_factory=dict)
    stock: dict[str, dict[str, Any]] = field(default_factory=dict)
    failures: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    durations: dict[str, list[float]] = field(default_factory=dict)
    next_refund: str = "R900"
    by_key: dict[str, str] = field(default_factory=dict)

    def tools(self) -> dict[str, Callable[[dict[str, Any]], Any]]:
        return {
            "get_order": lambda a: dict(self.orders[a["order_id"]]),
            "create_refund": self.create_refund,
            "check_refund": lambda a: self._fail_or("check_refund", self.refunds[a["refund_id"]]),
            "cancel_refund": lambda a: {"refund_id": a["refund_id"], "state": "cancelled"},
            "search_inventory": lambda a: dict(self.stock[a["sku"]]),
            "get_sales": lambda a: {"sku": a["sku"], "days": a["days"], "sold": 0},
            "notify_operator": lambda a: {"ok": True, "ticket": "OPS-17"},
        }

    def create_refund(self, args: dict[str, Any]) -> Any:
        key = str(args.get("idempotency_key"))
        if key not in self.by_key:  # payments creates the refund even if the answer is lost
            self.by_key[key] = self.next_refund
            self.refunds[self.next_refund] = {"refund_id": self.next_refund, "state": "pending"}
        return self._fail_or("create_refund", dict(self.refunds[self.by_key[key]]))

    def _fail_or(self, name: str, result: Any) -> Any:
        planned = self.failures.get(name)
        if planned:
            kind, message = planned.pop(0)
            raise ToolError(kind, message)
        return dict(result)

    def timer(self, name: str) -> float:
        planned = self.durations.get(name)
        return planned.pop(0) if planned else {"model": MODEL_MS}.get(name, 120.0)


def _order(order_id: str, cents: int) -> dict[str, Any]:
    display = f"{cents / 100:.2f}"
    return {
        "order_id": order_id,
        "status": "delivered",
        "amount_cents": cents,
        "price_display": display,
        "currency": "CNY",
    }


@dataclass(frozen=True)
class Story:
    case_id: str
    trace_id: str
    started_at: str
    message: str
    context: dict[str, Any]
    world: World
    prompt_set: str = "refund-v13"
    prompt: str | None = None


STORIES = [
    Story(
        "refund-success",
        "t-refund-success-0001",
        "2025-06-01T10:00:00+00:00",
        "Order O-1001 arrived broken, please refund it.",
        {"userId": "u_1001", "channel": "web"},
        World(orders={"O-1001": _order("O-1001", 19900)}, durations={"create_refund": [540.0]}),
    ),
    Story(
        "check-refund-timeout-retry",
        "t-check-refund-timeout-0002",
        "2025-06-02T09:15:00+00:00",
        "Has my refund R901 arrived?",
        {"userId": "u_1002", "channel": "app"},
        World(
            refunds={
                "R901": {"refund_id": "R901", "state": "settled", "settled_at": "2025-06-01T18:00Z"}
            },
            failures={"check_refund": [("TimeoutError", "payments gateway did not answer in 5s")]},
            durations={"check_refund": [5000.0, 350.0]},
        ),
    ),
    Story(
        "create-refund-lost-retry",
        "t-create-refund-lost-0003",
        "2025-06-03T14:30:00+00:00",
        "Refund order O-1003, the size was wrong.",
        {"userId": "u_1003", "channel": "web"},
        World(
            orders={"O-1003": _order("O-1003", 5900)},
            failures={
                "create_refund": [
                    ("ConnectionResetError", "connection reset before the response arrived")
                ]
            },
            durations={"create_refund": [10000.0, 480.0]},
            next_refund="R902",
        ),
    ),
    Story(
        "refund-wrong-unit",
        "t-refund-wrong-unit-0004",
        "2025-06-04T11:00:00+00:00",
        "Please refund order O-1004, I returned it yesterday.",
        {"userId": "u_1004", "channel": "web"},
        World(orders={"O-1004": _order("O-1004", 19900)}, next_refund="R904"),
        prompt_set="refund-v12",
        prompt="refund-v12",
    ),
    Story(
        "inventory-zero-stock",
        "t-inventory-zero-stock-0005",
        "2025-06-01T10:23:45+00:00",
        "查一下 A100 库存",
        {"userId": "u_1005", "desk": "inventory"},
        World(stock={"A100": {"sku": "A100", "stock": 0, "warehouse": "east"}}),
    ),
    Story(
        "cancel-refund-span-lost",
        "t-cancel-refund-span-lost-0006",
        "2025-06-05T08:00:00+00:00",
        "Cancel my refund R905.",
        {"userId": "u_1006", "channel": "web"},
        World(),
    ),
]


def record_story(story: Story) -> dict[str, Any]:
    """Run the agent on one story and return the native incident."""
    meta = RecordMeta(
        trace_id=story.trace_id,
        session_id=f"s-{story.started_at[:10].replace('-', '')}-{story.trace_id[-4:]}",
        started_at=datetime.fromisoformat(story.started_at),
        timezone="Asia/Shanghai",
        seed=42,
        app_version="agent-service-2.5.0",
        agent={
            "name": "refund-agent",
            "version": "2.5.0",
            "configHash": "cfg-7c1d2e",
            "promptVersion": story.prompt_set,
            "toolSchemaHash": "ts-41aa90",
        },
    )
    world = story.world

    def entry(case_input: dict[str, Any], rt: Any) -> Any:
        return agent.run(case_input, rt, prompt=story.prompt)

    case_input = {"user_message": story.message, "context": story.context, "conversation": []}
    return record(
        entry,
        case_input,
        model=fake_model,
        tools=world.tools(),
        meta=meta,
        egress=EGRESS_ALL,
        timer=world.timer,
    )


def lose_span(incident: dict[str, Any], tool: str) -> dict[str, Any]:
    """What a collector that dropped a span exports: the call's result gone, the run cut."""
    events = incident["events"]
    cut = next(i for i, e in enumerate(events) if e.get("tool") == tool)
    lost = {k: v for k, v in events[cut].items() if k not in ("result", "error", "durationMs")}
    return {**incident, "events": [*events[:cut], {**lost, "truncated": True}]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "examples" / "incidents")
    out = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    for story in STORIES:
        incident = record_story(story)
        if story.case_id == "cancel-refund-span-lost":
            incident = lose_span(incident, "cancel_refund")
        path = out / f"{story.case_id}.json"
        path.write_text(json.dumps(incident, indent=2, ensure_ascii=False) + "\n", "utf-8")
        print(f"recorded {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
