"""The OpenAI Chat Completions API (`POST /v1/chat/completions`), answered from the recording.

A request becomes the native format's messages: an assistant message's `tool_calls` as
`{id, name, arguments}` with the arguments parsed, null fields the SDK adds dropped. The answer
is a `chat.completion`, or with `stream: true` the chunks the API sends: the role, content
deltas, each tool call's id and name then its argument deltas, the chunk with `finish_reason`,
the `usage` chunk when `stream_options.include_usage` asks for it, then `[DONE]`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from corpus_tool.replay.doubles.asked import (
    BadRequest,
    ProviderAnswer,
    ProviderRequest,
    arguments,
    pieces,
    tokens,
    without_none,
)

PATH = "/v1/chat/completions"
_OWN = ("messages", "tools", "model", "temperature", "stream", "stream_options")
_SDK_NULLS = ("refusal", "annotations", "audio", "function_call")


def asked(body: Mapping[str, Any]) -> ProviderRequest:
    """The request in native terms."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise BadRequest("messages: a list of messages is required")
    tools = body.get("tools")
    options = body.get("stream_options") or {}
    return ProviderRequest(
        [_message(m, i) for i, m in enumerate(messages)],
        list(tools) if isinstance(tools, list) else None,
        body.get("model") if isinstance(body.get("model"), str) else None,
        body.get("temperature"),
        {k: v for k, v in body.items() if k not in _OWN},
        bool(body.get("stream")),
        isinstance(options, Mapping) and bool(options.get("include_usage")),
    )


def _message(message: Any, index: int) -> Any:
    if not isinstance(message, Mapping):
        raise BadRequest(f"messages[{index}]: not an object")
    if message.get("role") != "assistant":
        return without_none(message)
    out = without_none(message, keep=("content",))
    out.setdefault("content", None)
    for key in _SDK_NULLS:
        if not out.get(key):
            out.pop(key, None)
    calls = out.pop("tool_calls", None)
    if calls:
        out["tool_calls"] = [
            _call(c, f"messages[{index}].tool_calls[{n}]") for n, c in enumerate(calls)
        ]
    return out


def _call(call: Any, where: str) -> dict[str, Any]:
    if not isinstance(call, Mapping):
        raise BadRequest(f"{where}: not an object")
    function = call.get("function")
    named = function if isinstance(function, Mapping) else call  # the native shape too
    return {
        "id": call.get("id"),
        "name": named.get("name"),
        "arguments": arguments(named.get("arguments"), where),
    }


def _finish(answer: ProviderAnswer) -> str:
    reason = answer.response.finish_reason
    mapped = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length"}
    if reason:
        return mapped.get(reason, reason)
    return "tool_calls" if answer.response.tool_calls else "stop"


def _usage(answer: ProviderAnswer) -> dict[str, int]:
    prompt = tokens(answer.usage, "prompt_tokens", "input_tokens")
    completion = tokens(answer.usage, "completion_tokens", "output_tokens")
    total = tokens(answer.usage, "total_tokens") or prompt + completion
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}


def _head(answer: ProviderAnswer, kind: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-corpus-{answer.seq}",
        "object": kind,
        "created": answer.created,
        "model": answer.model,
    }


def completion(answer: ProviderAnswer) -> dict[str, Any]:
    """The non-streaming answer."""
    response = answer.response
    message: dict[str, Any] = {"role": "assistant", "content": response.content, "refusal": None}
    if response.tool_calls:
        message["tool_calls"] = [
            {
                "id": c.id or f"call_corpus_{answer.seq}_{n}",
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for n, c in enumerate(response.tool_calls)
        ]
    choice = {"index": 0, "message": message, "finish_reason": _finish(answer), "logprobs": None}
    out = {**_head(answer, "chat.completion"), "choices": [choice]}
    if answer.usage is not None:
        out["usage"] = _usage(answer)
    return out


def chunks(answer: ProviderAnswer, include_usage: bool) -> Iterator[dict[str, Any]]:
    """The streamed answer, chunk by chunk (`[DONE]` is the server's)."""
    head = _head(answer, "chat.completion.chunk")
    response = answer.response

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "choices": [choice]}

    first: dict[str, Any] = {"role": "assistant", "content": "" if response.content else None}
    yield chunk({**first, "refusal": None})
    for piece in pieces(response.content) if response.content else []:
        yield chunk({"content": piece})
    for n, call in enumerate(response.tool_calls):
        start = {"name": call.name, "arguments": ""}
        call_id = call.id or f"call_corpus_{answer.seq}_{n}"
        opening = {"index": n, "id": call_id, "type": "function", "function": start}
        yield chunk({"tool_calls": [opening]})
        for piece in pieces(json.dumps(call.arguments)):
            yield chunk({"tool_calls": [{"index": n, "function": {"arguments": piece}}]})
    yield chunk({}, _finish(answer))
    if include_usage:
        yield {**head, "choices": [], "usage": _usage(answer)}


def error(
    status: int, message: str, kind: str, code: str | None, param: str | None = None
) -> dict[str, Any]:
    """The API's error body."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def error_type(status: int) -> str:
    """The error `type` the API sends with `status`, for a recording that kept none."""
    if status == 429:
        return "requests"
    return "server_error" if status >= 500 else "invalid_request_error"
