"""Replaying imported cases strictly against a `Runtime` agent equivalent to the SDK agent.

`chat_agent` is the loop every SDK agent here runs (system prompt, user message, model, tools,
tool results back to the model), written against the Runtime, building its messages in the
trace model's chat shape. A strict replay with no divergence shows the import kept every
model request, tool call, argument, result and error the framework recorded, in order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from corpus_tool import Runtime, ToolError


def chat_agent(
    system: str | None,
    model: str | None = None,
    on_error: Callable[[ToolError], str] = lambda err: err.message,
    result_text: Callable[[Any], Any] = lambda value: value,
    named_results: bool = False,
    params: dict[str, Any] | None = None,
) -> Callable[[dict[str, Any], Runtime], dict[str, Any]]:
    """The entrypoint of a tool-calling chat agent."""

    def run(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
        head = [{"role": "system", "content": system}] if system is not None else []
        messages: list[dict[str, Any]] = [
            *head,
            {"role": "user", "content": case_input["user_message"]},
        ]
        while True:
            reply = rt.model(messages, model=model, **(params or {}))
            if not reply.tool_calls:
                return {"status": "succeeded", "output": reply.content}
            calls = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls
            ]
            messages.append({"role": "assistant", "content": reply.content, "tool_calls": calls})
            for call in reply.tool_calls:
                named = {"name": call.name} if named_results else {}
                try:
                    content = result_text(rt.tool(call.name, call.arguments))
                except ToolError as err:
                    content, named = on_error(err), {}
                messages.append(
                    {"role": "tool", "content": content, "tool_call_id": call.id, **named}
                )

    return run


def codeact_agent(
    model: str, system: str, tools: list[Any]
) -> Callable[[dict[str, Any], Runtime], dict[str, Any]]:
    """OpenHands' CodeAct loop on the Runtime (V0 streams and SDK conversations alike): tool
    results (and errors) go back as named tool messages, a plain answer waits for the user's
    next turn, `finish` ends the run."""

    def agent(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
        later = list(case_input["context"].get("user_turns") or [])
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": case_input["user_message"]},
        ]
        while True:
            reply = rt.model(messages, model=model, tools=tools)
            if not reply.tool_calls:
                messages.append({"role": "assistant", "content": reply.content})
                messages.append({"role": "user", "content": later.pop(0)})
                continue
            asked = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls
            ]
            messages.append({"role": "assistant", "content": reply.content, "tool_calls": asked})
            for call in reply.tool_calls:
                try:
                    shown = rt.tool(call.name, call.arguments)
                except ToolError as err:
                    shown = err.message
                if call.name == "finish":
                    return {"status": "succeeded", "output": call.arguments["message"]}
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": shown}
                )

    return agent
