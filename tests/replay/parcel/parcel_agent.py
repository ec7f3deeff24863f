"""A parcel desk agent, written as a team outside corpus-tool would write one.

It only uses the public API: `rt.model(messages, tools=TOOLS)` (no model id, no temperature:
its provider client fills those in) and `rt.tool`. Each `run_*` below is one edit of `run`,
the kind of change a regression corpus must catch; the tests point corpus.yaml at them.
"""

from __future__ import annotations

import json
from typing import Any

from corpus_tool import Runtime

PROMPT = "You are the parcel desk. Look a parcel up before you change where it goes."
NEW_PROMPT = PROMPT + " Never reroute a delivered parcel."
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("lookup_parcel", "check_address", "reroute_parcel", "notify_customer")
]


def run(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """The agent as it was recorded."""
    return _desk(case_input, rt)


def run_new_prompt(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """The system prompt gained a rule."""
    return _desk(case_input, rt, prompt=NEW_PROMPT)


def run_other_address(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Addresses are now written in capitals before rerouting."""

    def shout(name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "reroute_parcel":
            return {**args, "address": args["address"].upper()}
        return args

    return _desk(case_input, rt, prepare=shout)


def run_lookup_twice(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Looks the parcel up a second time, to be sure, before asking the model again."""
    return _desk(case_input, rt, again="lookup_parcel")


def run_no_notify(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Drops the customer notification the model asks for."""
    return _desk(case_input, rt, skip="notify_customer")


def run_needs_human(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Same calls, but hands the case to a person at the end."""
    return {**_desk(case_input, rt), "status": "needs_human"}


def run_reordered(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Runs the tool calls of one model answer last to first."""
    return _desk(case_input, rt, backwards=True)


def _desk(
    case_input: dict[str, Any],
    rt: Runtime,
    *,
    prompt: str = PROMPT,
    prepare: Any = None,
    again: str | None = None,
    skip: str | None = None,
    backwards: bool = False,
) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": prompt},
        {"role": "user", "content": case_input["user_message"]},
    ]
    while True:
        reply = rt.model(messages, tools=TOOLS)
        if not reply.tool_calls:
            return {"status": "succeeded", "output": reply.content}
        asked = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls]
        messages.append({"role": "assistant", "content": reply.content, "tool_calls": asked})
        calls = list(reversed(reply.tool_calls)) if backwards else list(reply.tool_calls)
        for call in calls:
            if call.name == skip:
                continue
            args = prepare(call.name, call.arguments) if prepare else call.arguments
            result = rt.tool(call.name, args)
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
            )
            if call.name == again:
                rt.tool(call.name, args)
                again = None
