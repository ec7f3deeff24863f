"""The inventory desk's flow: one model decision, the reads it asks for, an answer."""

from __future__ import annotations

from typing import Any

from corpus_tool import Runtime
from examples.refund_agent import prompts
from examples.refund_agent.inventory.calc import days_of_stock

MODEL = "deepseek-chat"
SPECS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("search_inventory", "get_sales", "notify_operator")
]
SALES_DAYS = 30


def ask(case_input: dict[str, Any], rt: Runtime, version: str) -> dict[str, Any]:
    """The model's reads, called in the order asked: tool name -> result."""
    messages = [
        {"role": "system", "content": prompts.load(version)},
        {"role": "user", "content": case_input.get("user_message") or ""},
    ]
    reply = rt.model(messages, tools=SPECS, model=MODEL, temperature=0.0)
    return {call.name: rt.tool(call.name, call.arguments) for call in reply.tool_calls}


def answer(sku: str, found: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Report stock; an empty shelf is reported and the operator told (not a crash)."""
    stock = found["search_inventory"]
    sold = found.get("get_sales", {}).get("sold", 0)
    if stock["stock"] <= 0:
        rt.tool("notify_operator", {"sku": sku, "reason": "out_of_stock"})
        return {
            "status": "succeeded",
            "output": f"{sku} is out of stock in {stock['warehouse']}; "
            "the operator has been asked to restock.",
        }
    days = days_of_stock(stock["stock"], sold, SALES_DAYS)
    lasts = f", about {days} days of sales" if days is not None else ""
    return {"status": "succeeded", "output": f"{sku}: {stock['stock']} in stock{lasts}."}


def run(case_input: dict[str, Any], rt: Runtime, version: str | None = None) -> dict[str, Any]:
    """The inventory desk."""
    found = ask(case_input, rt, version or prompts.CURRENT["inventory"])
    if "search_inventory" not in found:
        return {"status": "needs_human", "output": None}
    sku = str(found["search_inventory"].get("sku", "?"))
    return answer(sku, found, rt)
