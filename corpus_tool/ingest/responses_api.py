"""An OpenAI Responses API call (`POST /v1/responses`) a recording proxy kept, in native terms.

The request reads as the Responses double (replay/doubles/openai_responses.py) hands it to
replay, so a recorded run compares alike: `instructions` as the first `{role: system}`
message, a string `input` as one user message, message items with their text parts joined,
consecutive `function_call` items as one assistant message's `tool_calls` (by `call_id`, the
arguments parsed), a `function_call_output` as a `{role: tool}` message, function tools as
`{type: function, function: {name, description, parameters}}`; other items and tools as sent.
The answer is the `response` (a stream's final `response.completed`, or what its
`output_item` events and deltas add up to when the stream ended without one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from corpus_tool.ingest.chat import responses_output, tool_calls
from corpus_tool.model.exchange import RESPONSES_OWN, responses_messages, responses_tool

TRANSPORT = RESPONSES_OWN
"""Request fields held elsewhere in the event (or transport): not recorded as parameters."""
_LIFECYCLE = {"response.created", "response.queued", "response.in_progress"}
_TERMINAL = {"response.completed", "response.incomplete", "response.failed"}


def messages(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The request's instructions and input items as native messages (an item that is no
    object kept as a user message)."""
    items = request.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    return responses_messages(
        request.get("instructions"),
        items if isinstance(items, list) else [],
        lambda item, _: tool_calls([dict(item)]),
        lambda item, _: {"role": "user", "content": item},
    )


def tools(given: Sequence[Any]) -> list[Any]:
    """Function tools in the native form; built-in tools (web search, ...) as sent."""
    return [responses_tool(t) for t in given]


def answer(body: Any, events: Sequence[Any]) -> dict[str, Any]:
    """{model, content, toolCalls, finishReason, usage} of the response, streamed or not."""
    found = streamed(events) if events else body
    response: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    content, calls = responses_output(response.get("output"))
    said: dict[str, Any] = {"model": response.get("model"), "content": content}
    if calls:
        said["toolCalls"] = calls
    details = response.get("incomplete_details")
    if response.get("status") == "incomplete" and isinstance(details, Mapping):
        said["finishReason"] = details.get("reason")  # max_output_tokens, content_filter
    if response.get("usage") is not None:
        said["usage"] = response["usage"]
    return said


def streamed(events: Sequence[Any]) -> dict[str, Any]:
    """The response a Responses stream adds up to (what the SDK's `get_final_response()`
    builds): the terminal event's response, its output from the items' own events when the
    stream ended before one or the terminal event left the output out."""
    body: dict[str, Any] = {}
    ended = False
    items: dict[int, dict[str, Any]] = {}
    for event in (e for e in events if isinstance(e, Mapping)):
        kind = event.get("type")
        if kind in _LIFECYCLE | _TERMINAL and isinstance(event.get("response"), Mapping):
            body, ended = dict(event["response"]), kind in _TERMINAL
        elif kind in _ITEM_EVENTS and isinstance(event.get("output_index"), int):
            _ITEM_EVENTS[str(kind)](items, event)
    if not ended or body.get("output") is None:
        body["output"] = [item for _, item in sorted(items.items())]
    return body


def _added(items: dict[int, dict[str, Any]], event: Mapping[str, Any]) -> None:
    item = event.get("item")
    if isinstance(item, Mapping):
        items[event["output_index"]] = {**item, "content": list(item.get("content") or [])}


def _part(items: dict[int, dict[str, Any]], event: Mapping[str, Any]) -> None:
    part = event.get("part")
    if event["output_index"] in items and isinstance(part, Mapping):
        items[event["output_index"]]["content"].append(dict(part))


def _text_delta(items: dict[int, dict[str, Any]], event: Mapping[str, Any]) -> None:
    parts = items.get(event["output_index"], {}).get("content") or []
    at = event.get("content_index")
    if isinstance(at, int) and 0 <= at < len(parts):
        parts[at]["text"] = str(parts[at].get("text") or "") + str(event.get("delta") or "")


def _arguments_delta(items: dict[int, dict[str, Any]], event: Mapping[str, Any]) -> None:
    item = items.get(event["output_index"])
    if item is not None:
        item["arguments"] = str(item.get("arguments") or "") + str(event.get("delta") or "")


def _done(items: dict[int, dict[str, Any]], event: Mapping[str, Any]) -> None:
    item = event.get("item")
    if isinstance(item, Mapping):
        items[event["output_index"]] = dict(item)


_ITEM_EVENTS = {
    "response.output_item.added": _added,
    "response.content_part.added": _part,
    "response.output_text.delta": _text_delta,
    "response.function_call_arguments.delta": _arguments_delta,
    "response.output_item.done": _done,
}
