"""The live model for `corpus check --model live` (corpus.yaml `replay.live_model`).

corpus-tool calls `openai_chat()` once, in the grading process (never in a replay worker),
and sends it each model request the agent makes. It talks to any OpenAI-compatible Chat
Completions endpoint: OPENAI_BASE_URL and OPENAI_API_KEY as the `openai` client reads them,
CORPUS_LIVE_MODEL to ask another model than the agent names.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from corpus_tool import ModelResponse, ToolCall, Usage


def openai_chat() -> Callable[..., ModelResponse]:
    """A model callable over the `openai` client (no retries of its own: corpus-tool retries)."""
    from openai import OpenAI

    client = OpenAI(max_retries=0, timeout=float(os.environ.get("CORPUS_LIVE_TIMEOUT_S", "60")))

    def model(
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        model: str | None = None,
        temperature: float | None = None,
        **params: Any,
    ) -> ModelResponse:
        asked: dict[str, Any] = {
            "model": os.environ.get("CORPUS_LIVE_MODEL") or model,
            "messages": [_message(m) for m in messages],
            **params,
        }
        if tools:
            asked["tools"] = tools
        if temperature is not None:
            asked["temperature"] = temperature
        reply = client.chat.completions.create(**asked)
        choice = reply.choices[0]
        calls = [
            ToolCall(c.id, c.function.name, json.loads(c.function.arguments or "{}"))
            for c in choice.message.tool_calls or []
        ]
        usage = reply.usage
        return ModelResponse(
            choice.message.content,
            tuple(calls),
            choice.finish_reason,
            model=reply.model,
            usage=Usage(usage.prompt_tokens, usage.completion_tokens) if usage else None,
        )

    return model


def _message(message: dict[str, Any]) -> dict[str, Any]:
    """The agent's messages in Chat Completions form (its tool calls carry plain arguments)."""
    calls = message.get("tool_calls")
    if message.get("role") != "assistant" or not calls:
        return message
    return {
        "role": "assistant",
        "content": message.get("content"),
        "tool_calls": [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
            }
            for c in calls
        ],
    }
