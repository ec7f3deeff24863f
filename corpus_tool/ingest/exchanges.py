"""Provider calls a recording proxy kept (`corpus record`) as a native incident.

Each answered call to OpenAI Chat Completions, OpenAI Responses or Anthropic Messages
(streamed or not) is an `llm_request`: its messages in the native format's OpenAI style
(`chat.message`: Anthropic's `system` and Responses' `instructions` as the first
`{role: system}` message, tool-call arguments as parsed JSON; the Responses items as
`ingest/responses_api.py` reads them), its tools as sent (Anthropic's `{name, description,
input_schema}` and Responses' flat function tools as `{type: function, function}`, the form
the doubles hand replay), its other request fields as parameters (`stream` and
`stream_options` are transport, left out), the answer reassembled from the stream when it was
one. The call's `model` is the one the agent asked for (what replay compares its request
with); the dated model the provider answered as, when it names another, is kept as the
response's `model` (in the case's `extra`). The agent's tools run in its own process, where no
proxy sees them: a tool call is what the model asked for, its result what the agent reported
back in its next request (a `tool` message, Anthropic's `tool_result`, or a Responses
`function_call_output`), as docs/replay.md
says. A call the provider refused (status 400-599) is an `llm_request` with
`error: {status, type, code, param, message}` from the API's error body and no response, so
replay answers it as the provider did and the agent's retry gets the next call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from corpus_tool.ingest import responses_api
from corpus_tool.ingest.chat import message, text_of, tool_calls
from corpus_tool.ingest.coerce import result_value
from corpus_tool.model.exchange import RecordedExchange, function_tool

_TRANSPORT = {"model", "messages", "tools", "temperature", "stream", "stream_options", "system"}


def incident(
    exchanges: Sequence[RecordedExchange], top: Mapping[str, Any], final: Mapping[str, Any]
) -> dict[str, Any]:
    """The native incident: `top` (traceId, agent, ...) and the `final` event's status and
    output around the events of the answered model calls and the tool calls between them."""
    calls = [e for e in exchanges if e.status < 600 and _kind(e) is not None]
    events: list[dict[str, Any]] = []
    pending: dict[str, dict[str, Any]] = {}
    first_user: Any = None
    for exchange in calls:
        request = exchange.request if isinstance(exchange.request, Mapping) else {}
        messages = _messages(_kind(exchange), request)
        if first_user is None:
            first_user = next((m.get("content") for m in messages if m.get("role") == "user"), None)
        events.extend(_answered(messages, pending, len(events)))
        if exchange.status >= 400:
            events.append(_refused(exchange, request, messages, len(events) + 1))
            continue
        llm = _llm_request(exchange, request, messages, len(events) + 1)
        pending.update({c["id"]: c for c in llm["response"].get("toolCalls") or [] if c["id"]})
        events.append(llm)
    events.append({"seq": len(events) + 1, "type": "final", **final})
    started = _stamp(calls[0].started_at) if calls else None
    head = {"schemaVersion": "1.0", **top, "startedAt": started}
    return {**head, "input": {"userMessage": first_user}, "events": events}


def _kind(exchange: RecordedExchange) -> str | None:
    if exchange.api == "openai" and exchange.path.endswith("/chat/completions"):
        return "chat"
    if exchange.api == "openai" and exchange.path.endswith("/responses"):
        return "responses"
    if exchange.api == "anthropic" and exchange.path.endswith("/messages"):
        return "messages"
    return None


def _messages(kind: str | None, request: Mapping[str, Any]) -> list[dict[str, Any]]:
    if kind == "responses":
        return responses_api.messages(request)
    found = request.get("messages")
    raw: list[Any] = found if isinstance(found, list) else []
    if kind != "messages":
        return [message(m) for m in raw]
    out: list[dict[str, Any]] = []
    system = text_of(request.get("system"))
    if system is not None:
        out.append({"role": "system", "content": system})
    for item in raw:
        out.extend(_anthropic_message(item) if isinstance(item, Mapping) else [message(item)])
    return out


def _anthropic_message(item: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One Messages API message: its text, tool uses as tool calls, tool results as tool
    messages (one per result, as OpenAI-style conversations hold them)."""
    role, content = str(item.get("role") or "user"), item.get("content")
    if not isinstance(content, list):
        return [{"role": role, "content": content}]
    out: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            text = text_of(block.get("content"))
            out.append({"role": "tool", "tool_call_id": block.get("tool_use_id"), "content": text})
    text, calls = _blocks(content)
    if text is not None or calls:
        said: dict[str, Any] = {"role": role, "content": text}
        if calls:
            said["tool_calls"] = calls
        out.append(said)
    return out


def _blocks(content: Sequence[Any]) -> tuple[str | None, list[dict[str, Any]]]:
    texts = [b.get("text") for b in content if isinstance(b, Mapping) and b.get("type") == "text"]
    uses = [b for b in content if isinstance(b, Mapping) and b.get("type") == "tool_use"]
    calls = [{"id": b.get("id"), "name": b.get("name"), "arguments": b.get("input")} for b in uses]
    text = "".join(t for t in texts if isinstance(t, str)) if texts else None
    return text, tool_calls(calls)


def _answered(
    messages: list[dict[str, Any]], pending: dict[str, dict[str, Any]], before: int
) -> list[dict[str, Any]]:
    """The tool calls this request reports results of, as `tool_call` events."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        call = (
            pending.pop(str(msg.get("tool_call_id")), None) if msg.get("role") == "tool" else None
        )
        if call is None:
            continue
        out.append(
            {
                "seq": before + len(out) + 1,
                "type": "tool_call",
                "tool": call["name"],
                "callId": call["id"],
                "input": call["arguments"],
                "result": result_value(msg.get("content")),
            }
        )
    return out


def _llm_request(
    exchange: RecordedExchange, request: Mapping[str, Any], messages: list[dict[str, Any]], seq: int
) -> dict[str, Any]:
    answer = _answer(exchange)
    asked, answered = request.get("model"), answer.pop("model", None)
    event: dict[str, Any] = {
        "seq": seq,
        "type": "llm_request",
        "model": asked if isinstance(asked, str) and asked else answered,
        "timestamp": _stamp(exchange.started_at),
        "durationMs": exchange.duration_ms,
        "messages": messages,
    }
    kind = _kind(exchange)
    if isinstance(request.get("tools"), list):
        event["tools"] = _tools(kind, request["tools"])
    if request.get("temperature") is not None:
        event["temperature"] = request["temperature"]
    transport = responses_api.TRANSPORT if kind == "responses" else _TRANSPORT
    event.update({k: v for k, v in request.items() if k not in transport})
    usage = answer.pop("usage", None)
    if answered and answered != event["model"]:  # the dated model behind an alias
        answer["model"] = answered
    event["response"] = answer
    if usage is not None:
        event["usage"] = usage
    return event


def _tools(kind: str | None, tools: list[Any]) -> list[Any]:
    if kind == "messages":
        return [function_tool(t) for t in tools]
    return responses_api.tools(tools) if kind == "responses" else tools


def _refused(
    exchange: RecordedExchange, request: Mapping[str, Any], messages: list[dict[str, Any]], seq: int
) -> dict[str, Any]:
    """The call the provider refused: its request, and the status and error body it got."""
    event = _llm_request(exchange, request, messages, seq)
    event.pop("response", None)
    event.pop("usage", None)
    event["model"] = request.get("model") if isinstance(request.get("model"), str) else None
    body = exchange.response if isinstance(exchange.response, Mapping) else {}
    raw = body.get("error")
    found: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    error: dict[str, Any] = {"status": exchange.status}
    for key in ("type", "code", "param"):
        if found.get(key) is not None:
            error[key] = found[key]
    error["message"] = str(found.get("message") or f"HTTP {exchange.status}")
    event["error"] = error
    return event


def _answer(exchange: RecordedExchange) -> dict[str, Any]:
    """{model, content, toolCalls, finishReason, usage} of the answer, streamed or not."""
    if _kind(exchange) == "responses":
        return responses_api.answer(exchange.response, exchange.events)
    if exchange.api == "anthropic":
        body = exchange.response if exchange.events == () else _anthropic_stream(exchange.events)
        return _anthropic_answer(body if isinstance(body, Mapping) else {})
    body = exchange.response if exchange.events == () else _chat_stream(exchange.events)
    return _chat_answer(body if isinstance(body, Mapping) else {})


def _chat_answer(body: Mapping[str, Any]) -> dict[str, Any]:
    choices = body.get("choices") if isinstance(body.get("choices"), list) else []
    choice = choices[0] if choices and isinstance(choices[0], Mapping) else {}
    said = message(choice.get("message") or {"role": "assistant", "content": None})
    answer: dict[str, Any] = {"model": body.get("model"), "content": said.get("content")}
    if said.get("tool_calls"):
        answer["toolCalls"] = said["tool_calls"]
    if choice.get("finish_reason") is not None:
        answer["finishReason"] = choice["finish_reason"]
    if body.get("usage") is not None:
        answer["usage"] = body["usage"]
    return answer


def _chat_stream(events: Sequence[Any]) -> dict[str, Any]:
    """The completion a Chat Completions stream adds up to (what the SDK's accumulator builds)."""
    content: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    body: dict[str, Any] = {}
    finish = None
    for chunk in (e for e in events if isinstance(e, Mapping)):
        body.update({k: chunk[k] for k in ("model", "usage") if chunk.get(k) is not None})
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            content.append(delta.get("content") or "")
            for part in delta.get("tool_calls") or []:
                slot = calls.setdefault(int(part.get("index", 0)), {"id": None, "name": ""})
                slot["id"] = part.get("id") or slot["id"]
                function = part.get("function") or {}
                slot["name"] += function.get("name") or ""
                slot["arguments"] = slot.get("arguments", "") + (function.get("arguments") or "")
            finish = choice.get("finish_reason") or finish
    said: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        said["tool_calls"] = [
            {"id": c["id"], "function": {"name": c["name"], "arguments": c.get("arguments", "")}}
            for _, c in sorted(calls.items())
        ]
    return {**body, "choices": [{"message": said, "finish_reason": finish}]}


def _anthropic_answer(body: Mapping[str, Any]) -> dict[str, Any]:
    found = body.get("content")
    text, calls = _blocks(found if isinstance(found, list) else [])
    answer: dict[str, Any] = {"model": body.get("model"), "content": text}
    if calls:
        answer["toolCalls"] = calls
    if body.get("stop_reason") is not None:
        answer["finishReason"] = body["stop_reason"]
    if body.get("usage") is not None:
        answer["usage"] = body["usage"]
    return answer


def _anthropic_stream(events: Sequence[Any]) -> dict[str, Any]:
    """The message a Messages stream adds up to (what `get_final_message()` builds)."""
    body: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    for event in (e for e in events if isinstance(e, Mapping)):
        kind = event.get("type")
        if kind == "message_start":
            body = dict(event.get("message") or {})
        elif kind == "content_block_start":
            blocks[int(event.get("index", 0))] = {**(event.get("content_block") or {}), "_j": ""}
        elif kind == "content_block_delta":
            _add_delta(blocks.setdefault(int(event.get("index", 0)), {}), event.get("delta"))
        elif kind == "message_delta":
            body.update(event.get("delta") or {})
            body["usage"] = {**(body.get("usage") or {}), **(event.get("usage") or {})}
    body["content"] = [_closed(block) for _, block in sorted(blocks.items())]
    return body


def _add_delta(block: dict[str, Any], delta: Any) -> None:
    if not isinstance(delta, Mapping):
        return
    if delta.get("type") == "text_delta":
        block["text"] = block.get("text", "") + str(delta.get("text") or "")
    elif delta.get("type") == "input_json_delta":
        block["_j"] = block.get("_j", "") + str(delta.get("partial_json") or "")


def _closed(block: dict[str, Any]) -> dict[str, Any]:
    partial = block.pop("_j", "")
    if block.get("type") == "tool_use" and partial:
        try:
            block["input"] = json.loads(partial)
        except ValueError:
            block["input"] = partial
    return block


def _stamp(epoch: float) -> str:
    when = datetime.fromtimestamp(epoch, timezone.utc)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
