"""The OpenAI Responses API (`POST /v1/responses`), answered from the recording.

In native terms: `instructions` becomes the first `{role: system}` message; message items
(`input_text` / `output_text` parts joined) become messages; consecutive `function_call` items
become one assistant message's `tool_calls` (the arguments parsed); a `function_call_output`
becomes a `{role: tool}` message; function tools become `{type: function, function: {...}}`.
The answer is a `response` whose output holds the recorded text as a `message` item and each
recorded tool call as a `function_call` item; with `stream: true`, the events the API sends:
`response.created`, each item's `output_item.added`, its text or argument deltas and `done`
events, `response.completed` with the whole response.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from corpus_tool.model.exchange import RESPONSES_OWN, responses_messages, responses_tool
from corpus_tool.replay.doubles import openai_chat
from corpus_tool.replay.doubles.asked import (
    BadRequest,
    ProviderAnswer,
    ProviderRequest,
    arguments,
    pieces,
    tokens,
)

PATH = "/v1/responses"


def asked(body: Mapping[str, Any]) -> ProviderRequest:
    """The request in native terms."""
    items = body.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    if not isinstance(items, list):
        raise BadRequest("input: a string or a list of input items is required")
    messages = responses_messages(body.get("instructions"), items, _calls, _odd)
    tools = body.get("tools")
    return ProviderRequest(
        messages,
        [responses_tool(t) for t in tools] if isinstance(tools, list) else None,
        body.get("model") if isinstance(body.get("model"), str) else None,
        body.get("temperature"),
        {k: v for k, v in body.items() if k not in RESPONSES_OWN},
        bool(body.get("stream")),
    )


def _calls(item: Mapping[str, Any], index: int) -> list[dict[str, Any]]:
    where = f"input[{index}]"
    return [
        {
            "id": item.get("call_id"),
            "name": item.get("name"),
            "arguments": arguments(item.get("arguments"), where),
        }
    ]


def _odd(item: Any, index: int) -> dict[str, Any]:
    raise BadRequest(f"input[{index}]: not an object")


def _items(answer: ProviderAnswer) -> list[dict[str, Any]]:
    response = answer.response
    items: list[dict[str, Any]] = []
    if response.content:
        part = {"type": "output_text", "text": response.content, "annotations": []}
        items.append(
            {
                "type": "message",
                "id": f"msg_corpus_{answer.seq}",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    for n, call in enumerate(response.tool_calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_corpus_{answer.seq}_{n}",
                "call_id": call.id or f"call_corpus_{answer.seq}_{n}",
                "name": call.name,
                "arguments": json.dumps(call.arguments),
                "status": "completed",
            }
        )
    return items


def _usage(answer: ProviderAnswer) -> dict[str, Any]:
    given = tokens(answer.usage, "input_tokens", "prompt_tokens")
    made = tokens(answer.usage, "output_tokens", "completion_tokens")
    return {
        "input_tokens": given,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": made,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": given + made,
    }


def response(answer: ProviderAnswer, status: str = "completed") -> dict[str, Any]:
    """The non-streaming answer (`status` in progress: the first event's snapshot)."""
    done = status == "completed"
    return {
        "id": f"resp_corpus_{answer.seq}",
        "object": "response",
        "created_at": answer.created,
        "status": status,
        "model": answer.model,
        "output": _items(answer) if done else [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "metadata": {},
        "usage": _usage(answer) if done else None,
    }


def events(answer: ProviderAnswer) -> Iterator[tuple[str, dict[str, Any]]]:
    """The streamed answer: (event type, data) pairs, numbered."""
    numbered = _events(answer)
    for n, (kind, data) in enumerate(numbered):
        yield kind, {"type": kind, "sequence_number": n, **data}


def _events(answer: ProviderAnswer) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "response.created", {"response": response(answer, "in_progress")}
    for index, item in enumerate(_items(answer)):
        where = {"output_index": index, "item_id": item["id"]}
        if item["type"] == "message":
            text = item["content"][0]["text"]
            opening = {**item, "status": "in_progress", "content": []}
            yield "response.output_item.added", {"output_index": index, "item": opening}
            empty = {"type": "output_text", "text": "", "annotations": []}
            yield "response.content_part.added", {**where, "content_index": 0, "part": empty}
            for piece in pieces(text):
                delta = {**where, "content_index": 0, "delta": piece, "logprobs": []}
                yield "response.output_text.delta", delta
            yield "response.output_text.done", {**where, "content_index": 0, "text": text}
            part = item["content"][0]
            yield "response.content_part.done", {**where, "content_index": 0, "part": part}
        else:
            opening = {**item, "status": "in_progress", "arguments": ""}
            yield "response.output_item.added", {"output_index": index, "item": opening}
            for piece in pieces(item["arguments"]):
                yield "response.function_call_arguments.delta", {**where, "delta": piece}
            done = {**where, "arguments": item["arguments"]}
            yield "response.function_call_arguments.done", done
        yield "response.output_item.done", {"output_index": index, "item": item}
    yield "response.completed", {"response": response(answer)}


# the Responses API answers errors in the OpenAI API's one shape, as Chat Completions does
error = openai_chat.error
error_type = openai_chat.error_type
