"""The Anthropic Messages API (`POST /v1/messages`), answered from the recording.

In native terms: `system` becomes the first `{role: system}` message (how native incidents hold
system instructions); an assistant turn's `tool_use` blocks become its `tool_calls` (the input
as arguments); a user turn's `tool_result` blocks become `{role: tool}` messages, before the
turn's text; tools become `{type: function, function: {name, description, parameters}}`. The
answer is a `message`, or with `stream: true` the events the API sends: `message_start`,
`content_block_start/delta/stop` (text deltas; a `tool_use` block's input as JSON deltas),
`message_delta` with `stop_reason` and usage, `message_stop`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from corpus_tool.model.exchange import function_tool
from corpus_tool.replay.doubles.asked import (
    BadRequest,
    ProviderAnswer,
    ProviderRequest,
    pieces,
    tokens,
)

PATH = "/v1/messages"
_OWN = ("messages", "tools", "model", "temperature", "stream", "system")


def asked(body: Mapping[str, Any]) -> ProviderRequest:
    """The request in native terms."""
    turns = body.get("messages")
    if not isinstance(turns, list):
        raise BadRequest("messages: a list of messages is required")
    messages: list[Any] = []
    system = _text(body.get("system"))
    if system is not None:
        messages.append({"role": "system", "content": system})
    for index, turn in enumerate(turns):
        messages += _turn(turn, index)
    tools = body.get("tools")
    return ProviderRequest(
        messages,
        [function_tool(t) for t in tools] if isinstance(tools, list) else None,
        body.get("model") if isinstance(body.get("model"), str) else None,
        body.get("temperature"),
        {k: v for k, v in body.items() if k not in _OWN},
        bool(body.get("stream")),
    )


def _text(content: Any) -> Any:
    """A string, or the text of a list of text blocks (None when there is none)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text", "") for b in content if isinstance(b, Mapping)]
        return "".join(texts) if texts else None
    return content


def _turn(turn: Any, index: int) -> list[Any]:
    if not isinstance(turn, Mapping):
        raise BadRequest(f"messages[{index}]: not an object")
    role, content = turn.get("role"), turn.get("content")
    if isinstance(content, str) or content is None:
        return [{"role": role, "content": content}]
    blocks = [b for b in content if isinstance(b, Mapping)]
    text = [b for b in blocks if b.get("type") == "text"]
    joined = "".join(str(b.get("text", "")) for b in text) if text else None
    if role == "assistant":
        out: dict[str, Any] = {"role": "assistant", "content": joined}
        calls = [
            {"id": b.get("id"), "name": b.get("name"), "arguments": dict(b.get("input") or {})}
            for b in blocks
            if b.get("type") == "tool_use"
        ]
        if calls:
            out["tool_calls"] = calls
        return [out]
    found: list[Any] = [
        {"role": "tool", "tool_call_id": b.get("tool_use_id"), "content": _result(b)}
        for b in blocks
        if b.get("type") == "tool_result"
    ]
    if joined is not None or not found:
        found.append({"role": role, "content": joined})
    return found


def _result(block: Mapping[str, Any]) -> Any:
    content = _text(block.get("content"))
    return content if content is not None else ""


def _stop(answer: ProviderAnswer) -> str:
    reason = answer.response.finish_reason
    mapped = {"tool_calls": "tool_use", "stop": "end_turn", "length": "max_tokens"}
    if reason:
        return mapped.get(reason, reason)
    return "tool_use" if answer.response.tool_calls else "end_turn"


def _blocks(answer: ProviderAnswer) -> list[dict[str, Any]]:
    response = answer.response
    blocks: list[dict[str, Any]] = []
    if response.content:
        blocks.append({"type": "text", "text": response.content})
    for n, call in enumerate(response.tool_calls):
        call_id = call.id or f"toolu_corpus_{answer.seq}_{n}"
        blocks.append(
            {"type": "tool_use", "id": call_id, "name": call.name, "input": call.arguments}
        )
    return blocks


def _head(answer: ProviderAnswer, content: list[Any]) -> dict[str, Any]:
    return {
        "id": f"msg_corpus_{answer.seq}",
        "type": "message",
        "role": "assistant",
        "model": answer.model,
        "content": content,
    }


def _usage(answer: ProviderAnswer) -> dict[str, int]:
    return {
        "input_tokens": tokens(answer.usage, "input_tokens", "prompt_tokens"),
        "output_tokens": tokens(answer.usage, "output_tokens", "completion_tokens"),
    }


def message(answer: ProviderAnswer) -> dict[str, Any]:
    """The non-streaming answer."""
    tail = {"stop_reason": _stop(answer), "stop_sequence": None, "usage": _usage(answer)}
    return {**_head(answer, _blocks(answer)), **tail}


def events(answer: ProviderAnswer) -> Iterator[tuple[str, dict[str, Any]]]:
    """The streamed answer: (event name, data) pairs."""
    usage = _usage(answer)
    start = {**_head(answer, []), "stop_reason": None, "stop_sequence": None}
    start["usage"] = {"input_tokens": usage["input_tokens"], "output_tokens": 0}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(_blocks(answer)):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
        else:
            opening = {**block, "input": {}}
            text = json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces(text)]
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": opening,
            },
        )
        for delta in deltas:
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    last: dict[str, Any] = {"stop_reason": _stop(answer), "stop_sequence": None}
    ending = {
        "type": "message_delta",
        "delta": last,
        "usage": {"output_tokens": usage["output_tokens"]},
    }
    yield "message_delta", ending
    yield "message_stop", {"type": "message_stop"}


def error(
    status: int, message: str, kind: str, code: str | None, param: str | None = None
) -> dict[str, Any]:
    """The API's error body (it has no `code` or `param`)."""
    return {"type": "error", "error": {"type": kind, "message": message}}


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def error_type(status: int) -> str:
    """The error `type` the API sends with `status`, for a recording that kept none."""
    return _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
