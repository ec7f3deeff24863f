"""A scripted provider on the loopback for the weather desk (tests/replay/provider_agents.py),
written from the APIs' own reference, not from the doubles: what `corpus record` records from.

It answers OpenAI Chat Completions, OpenAI Responses and Anthropic Messages, each whole or
streamed as the API streams it (Responses: named `event:` lines, each event numbered by its
`sequence_number`, no `[DONE]`; text and argument deltas carry `obfuscation` padding): a
first request gets a `get_weather` tool call, a request that reports the tool's result gets
the answer. Like the real APIs it names the dated model behind the alias it was
asked for, gives each call an id of its own, and cuts the streamed text and tool arguments into
uneven deltas. `bodies` holds every request body it received.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

DATED = {"gpt-4o-mini": "gpt-4o-mini-2024-07-18", "claude-sonnet-4-0": "claude-sonnet-4-20250514"}
"""The model the API names in its answer, by the alias the agent asks for."""
ANSWER = "It is 21 degrees and clear in Paris, a fine evening for a long walk by the river."
ARGUMENTS = '{"city": "Paris"}'
USAGE = [(61, 17), (98, 23)]


def _cut(text: str) -> list[str]:
    """Uneven pieces, as a provider's tokens arrive."""
    out, at, size = [], 0, 3
    while at < len(text):
        out.append(text[at : at + size])
        at, size = at + size, size % 7 + 2
    return out


class _Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    bodies: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(body)
        turn = len([b for b in type(self).bodies if b.get("model") == body.get("model")])
        if self.path.endswith("/chat/completions"):
            done = any(m.get("role") == "tool" for m in body["messages"])
            if body.get("stream"):
                usage = (body.get("stream_options") or {}).get("include_usage")
                self._sse([("", c) for c in _chat_chunks(body, done, turn, usage)], "[DONE]")
            else:
                self._json(_chat(body, done, turn))
        elif self.path.endswith("/responses"):
            done = any(i.get("type") == "function_call_output" for i in _input_items(body))
            if body.get("stream"):
                self._sse(list(_responses_events(body, done, turn)))
            else:
                self._json(_responses(body, done, turn))
        elif self.path.endswith("/messages"):
            last = body["messages"][-1]["content"]
            done = isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)
            if body.get("stream"):
                self._sse(list(_anthropic_events(body, done, turn)))
            else:
                self._json(_anthropic(body, done, turn))
        else:
            self._json({"error": {"message": "no such path", "type": "invalid_request_error"}}, 404)

    def _json(self, doc: dict[str, Any], status: int = 200) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[tuple[str, dict[str, Any]]], done: str | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            self._chunk(f"{head}data: {json.dumps(data)}\n\n".encode())
        if done:
            self._chunk(f"data: {done}\n\n".encode())
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _chat(body: dict[str, Any], done: bool, turn: int) -> dict[str, Any]:
    prompt, completion = USAGE[done]
    message: dict[str, Any] = {"role": "assistant", "content": ANSWER if done else None}
    if not done:
        message["tool_calls"] = [
            {
                "id": f"call_q7Xv{turn}Lr2",
                "type": "function",
                "function": {"name": "get_weather", "arguments": ARGUMENTS},
            }
        ]
    message.update({"refusal": None, "annotations": []})
    return {
        "id": f"chatcmpl-BQx{turn}",
        "object": "chat.completion",
        "created": 1748772000 + turn,
        "model": DATED[body["model"]],
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "stop" if done else "tool_calls",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
        "service_tier": "default",
        "system_fingerprint": "fp_34a54ae93c",
    }


def _chat_chunks(
    body: dict[str, Any], done: bool, turn: int, usage: bool
) -> Iterator[dict[str, Any]]:
    head = {
        "id": f"chatcmpl-BQx{turn}",
        "object": "chat.completion.chunk",
        "created": 1748772000 + turn,
        "model": DATED[body["model"]],
        "service_tier": "default",
        "system_fingerprint": "fp_34a54ae93c",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "choices": [choice], **({"usage": None} if usage else {})}

    if done:
        yield chunk({"role": "assistant", "content": "", "refusal": None})
        for piece in _cut(ANSWER):
            yield chunk({"content": piece})
        yield chunk({}, "stop")
    else:
        yield chunk({"role": "assistant", "content": None, "refusal": None})
        call = {"index": 0, "id": f"call_q7Xv{turn}Lr2", "type": "function"}
        yield chunk(
            {"tool_calls": [{**call, "function": {"name": "get_weather", "arguments": ""}}]}
        )
        for piece in _cut(ARGUMENTS):
            yield chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
        yield chunk({}, "tool_calls")
    if usage:
        prompt, completion = USAGE[done]
        tokens = {"prompt_tokens": prompt, "completion_tokens": completion}
        yield {**head, "choices": [], "usage": {**tokens, "total_tokens": prompt + completion}}


def _anthropic_content(done: bool, turn: int) -> list[dict[str, Any]]:
    if done:
        return [{"type": "text", "text": ANSWER}]
    use = {"type": "tool_use", "id": f"toolu_01A{turn}x9", "name": "get_weather"}
    return [{**use, "input": json.loads(ARGUMENTS)}]


def _anthropic(body: dict[str, Any], done: bool, turn: int) -> dict[str, Any]:
    prompt, completion = USAGE[done]
    return {
        "id": f"msg_01Hq{turn}",
        "type": "message",
        "role": "assistant",
        "model": DATED[body["model"]],
        "content": _anthropic_content(done, turn),
        "stop_reason": "end_turn" if done else "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": prompt,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": completion,
            "service_tier": "standard",
        },
    }


def _anthropic_events(
    body: dict[str, Any], done: bool, turn: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    whole = _anthropic(body, done, turn)
    start = {**whole, "content": [], "stop_reason": None}
    start["usage"] = {**whole["usage"], "output_tokens": 1}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(whole["content"]):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in _cut(block["text"])]
        else:
            opening = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in _cut(ARGUMENTS)]
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": opening,
            },
        )
        yield "ping", {"type": "ping"}
        for delta in deltas:
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": whole["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _input_items(body: dict[str, Any]) -> list[dict[str, Any]]:
    given = body["input"]
    return [{"role": "user", "content": given}] if isinstance(given, str) else list(given)


def _responses_output(done: bool, turn: int, status: str = "completed") -> dict[str, Any]:
    if done:
        text = ANSWER if status == "completed" else ""
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
        return {
            "id": f"msg_68a{turn}c0ffee",
            "type": "message",
            "status": status,
            "content": [part] if status == "completed" else [],
            "role": "assistant",
        }
    return {
        "id": f"fc_68a{turn}beef",
        "type": "function_call",
        "status": status,
        "arguments": ARGUMENTS if status == "completed" else "",
        "call_id": f"call_Rz8{turn}Kp1",
        "name": "get_weather",
    }


def _responses(body: dict[str, Any], done: bool, turn: int, whole: bool = True) -> dict[str, Any]:
    """The response object (`whole` False: the in-progress snapshot a stream opens with)."""
    prompt, completion = USAGE[done]
    usage = {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": prompt + completion,
    }
    tools = [{**t, "strict": t.get("strict", True)} for t in body.get("tools") or []]
    return {
        "id": f"resp_68a{turn}f00d",
        "object": "response",
        "created_at": 1748772000 + turn,
        "status": "completed" if whole else "in_progress",
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": None,
        "max_tool_calls": None,
        "model": DATED[body["model"]],
        "output": [_responses_output(done, turn)] if whole else [],
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "service_tier": "default",
        "store": True,
        "temperature": body.get("temperature", 1.0),
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": tools,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage if whole else None,
        "user": None,
        "metadata": {},
    }


def _responses_events(
    body: dict[str, Any], done: bool, turn: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The stream: lifecycle events around the one output item's added, delta, done events."""
    opening = _responses(body, done, turn, whole=False)
    item = _responses_output(done, turn)
    where = {"item_id": item["id"], "output_index": 0}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": opening},
        {"type": "response.in_progress", "response": opening},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": _responses_output(done, turn, "in_progress"),
        },
    ]
    if done:
        empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        part = {**where, "content_index": 0}
        events.append({"type": "response.content_part.added", **part, "part": empty})
        events.extend(
            {
                "type": "response.output_text.delta",
                **part,
                "delta": piece,
                "logprobs": [],
                "obfuscation": "x" * (9 - len(piece)),
            }
            for piece in _cut(ANSWER)
        )
        events.append({"type": "response.output_text.done", **part, "text": ANSWER, "logprobs": []})
        events.append({"type": "response.content_part.done", **part, "part": item["content"][0]})
    else:
        events.extend(
            {
                "type": "response.function_call_arguments.delta",
                **where,
                "delta": piece,
                "obfuscation": "y" * (9 - len(piece)),
            }
            for piece in _cut(ARGUMENTS)
        )
        events.append(
            {"type": "response.function_call_arguments.done", **where, "arguments": ARGUMENTS}
        )
    events.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    events.append({"type": "response.completed", "response": _responses(body, done, turn)})
    for number, event in enumerate(events):
        yield event["type"], {**event, "sequence_number": number}


@contextmanager
def upstream() -> Iterator[str]:
    """The provider on a loopback port for the block: its base URL (no `/v1`)."""
    _Upstream.bodies = []
    with serving(_Upstream) as base:
        yield base


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """`handler` served on a loopback port for the block: its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def bodies() -> list[dict[str, Any]]:
    """What the provider was asked, in order."""
    return list(_Upstream.bodies)
