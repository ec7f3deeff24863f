"""The entrypoint corpus-tool replays (examples/corpus/corpus.yaml `agent.entrypoint`)."""

from __future__ import annotations

import json
from typing import Any

from corpus_tool import Runtime
from examples.refund_agent import prompts
from examples.refund_agent.inventory import desk
from examples.refund_agent.tools.refund import MODEL, SPECS, call_tool

MAX_STEPS = 6


def run(case_input: dict[str, Any], rt: Runtime, prompt: str | None = None) -> dict[str, Any]:
    """Answer one customer message; `prompt` pins a prompt version (record mode uses it)."""
    if (case_input.get("context") or {}).get("desk") == "inventory":
        return desk.run(case_input, rt, prompt)
    return refund_desk(case_input, rt, prompt or prompts.CURRENT["refund"])


def refund_desk(case_input: dict[str, Any], rt: Runtime, version: str) -> dict[str, Any]:
    """Let the model pick tools until it answers; a created refund means `submitted`."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": prompts.load(version)},
        {"role": "user", "content": case_input.get("user_message") or ""},
    ]
    created = False
    for _ in range(MAX_STEPS):
        reply = rt.model(messages, tools=SPECS, model=MODEL, temperature=0.0)
        if not reply.tool_calls:
            return {"status": "submitted" if created else "succeeded", "output": reply.content}
        messages.append(_assistant(reply.tool_calls))
        for call in reply.tool_calls:
            result = call_tool(rt, call)
            created = created or (call.name == "create_refund" and "refund_id" in result)
            content = json.dumps(result, sort_keys=True, ensure_ascii=False)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return {"status": "step_limit", "output": None}


def _assistant(calls: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
    }
