"""Small edits of the example agent, each the kind of change strict replay must catch."""

from __future__ import annotations

from typing import Any

from corpus_tool import Runtime


def _desk() -> Any:
    from examples.refund_agent.inventory import desk

    return desk


def inventory_extra_read(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Looks the stock up a second time before answering (an extra tool call)."""
    desk = _desk()
    found = desk.ask(case_input, rt, "inventory-v2")
    rt.tool("search_inventory", {"sku": "A100"})
    return desk.answer("A100", found, rt)  # type: ignore[no-any-return]


def inventory_no_notify(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Forgets to tell the operator about the empty shelf (a skipped tool call)."""
    _desk().ask(case_input, rt, "inventory-v2")
    return {
        "status": "succeeded",
        "output": "A100 is out of stock in east; the operator has been asked to restock.",
    }


def inventory_escalates(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Same calls, but hands the conversation to a human (another terminal status)."""
    result: dict[str, Any] = _desk().run(case_input, rt)
    return {**result, "status": "needs_human"}


def inventory_reads_reversed(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Calls the two reads the model asked for in the opposite order."""
    desk = _desk()
    from examples.refund_agent import prompts

    messages = [
        {"role": "system", "content": prompts.load("inventory-v2")},
        {"role": "user", "content": case_input["user_message"]},
    ]
    reply = rt.model(messages, tools=desk.SPECS, model=desk.MODEL, temperature=0.0)
    found = {c.name: rt.tool(c.name, c.arguments) for c in reversed(reply.tool_calls)}
    return desk.answer("A100", found, rt)  # type: ignore[no-any-return]
