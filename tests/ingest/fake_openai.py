"""A scripted OpenAI Chat Completions endpoint: real `openai` clients talk to it offline.

The SDKs under test (OpenAI Agents, the OTel OpenAI instrumentation) then run their own code
end to end; only the HTTP answer is scripted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx


def completion(
    content: str | None = None, calls: list[tuple[str, str, dict[str, Any]]] | None = None
) -> dict[str, Any]:
    """One chat.completion body: text, or tool calls as (id, name, arguments)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ]
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-4.1-mini-2025-04-14",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }


class Script:
    """Answers each POST /chat/completions with the next scripted body; records the requests."""

    def __init__(self, bodies: list[dict[str, Any]]) -> None:
        self._bodies: Iterator[dict[str, Any]] = iter(bodies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        return httpx.Response(200, json=next(self._bodies))

    def sync_client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))

    def async_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))


def chat_until_answer(client: Any, messages: list[dict[str, Any]], run_tool: Any) -> str:
    """The plain tool loop of a hand-written agent: ask the model, run each tool it calls
    (`run_tool(call) -> str`), until it answers in text."""
    while True:
        completion = client.chat.completions.create(model="gpt-4.1-mini", messages=messages)
        reply = completion.choices[0].message
        if not reply.tool_calls:
            return str(reply.content)
        messages.append(reply.model_dump(exclude_none=True))
        for call in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": run_tool(call)})


def weather_script() -> Script:
    """The weather story every round trip tells: two tool calls (one fails), then the answer."""
    return Script([
        completion(calls=[("call_1", "get_weather", {"city": "Tokyo"}),
                          ("call_2", "get_station", {"station_id": "x9"})]),
        completion("It is sunny in Tokyo."),
    ])  # fmt: skip
