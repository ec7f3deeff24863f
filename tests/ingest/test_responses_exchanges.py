"""`corpus record` of OpenAI Responses calls (ingest/exchanges.py, ingest/responses_api.py): the
request in the terms the Responses double hands replay, and the answer a stream adds up to."""

from __future__ import annotations

import json
from typing import Any

import pytest

from corpus_tool.ingest.exchanges import incident
from corpus_tool.model.exchange import RecordedExchange
from corpus_tool.replay.doubles import openai_responses

WEATHER = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
REQUESTS = {
    "string input": {"model": "gpt-4o-mini", "input": "Hi", "instructions": "Be brief."},
    "echoed output items": {
        "model": "gpt-4o-mini",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Weather in "},
                    {"type": "input_text", "text": "Paris?"},
                ],
            },
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Looking.", "annotations": []}],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_a",
                "name": "get_weather",
                "arguments": '{"city": "Paris"}',
                "status": "completed",
            },
            {
                "type": "function_call",
                "call_id": "call_b",
                "name": "get_weather",
                "arguments": '{"city": "Lyon"}',
            },
            {"type": "function_call_output", "call_id": "call_a", "output": '{"temp_c": 21}'},
            {
                "type": "function_call_output",
                "call_id": "call_b",
                "output": [{"type": "input_text", "text": "rain"}],
            },
        ],
        "tools": [
            {**WEATHER, "strict": True, "description": "Weather now"},
            {"type": "web_search"},
        ],
        "temperature": 0.2,
        "max_output_tokens": 300,
        "stream": True,
        "stream_options": {"include_obfuscation": False},
    },
}


def exchange(request: dict[str, Any], body: Any = None, events: tuple[Any, ...] = ()) -> Any:
    return RecordedExchange("openai", "/v1/responses", request, 200, body, events, 1.7e9, 5.0)


def calls_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in doc["events"] if e["type"] == "llm_request"]


@pytest.mark.parametrize("name", list(REQUESTS))
def test_recorded_request_is_what_the_responses_double_hands_replay(name: str) -> None:
    """Messages, tools, temperature and parameters as recorded equal the double's reading of
    the same request, so a recorded run compares alike on replay (none of it one-sided)."""
    request = REQUESTS[name]
    doc = incident([exchange(request, {"output": []})], {"traceId": "t"}, {"status": "succeeded"})
    (recorded,) = calls_of(doc)
    asked = openai_responses.asked(request)
    assert recorded["messages"] == asked.messages
    assert recorded.get("tools") == asked.tools
    assert recorded.get("temperature") == asked.temperature
    held = ("model", "tools", "temperature")
    assert {k: v for k, v in recorded.items() if k in request and k not in held} == asked.params


def test_a_function_call_output_in_the_next_request_is_the_tool_calls_result() -> None:
    first = {"model": "m", "input": "Weather?"}
    answer = {
        "model": "m-2025",
        "status": "completed",
        "output": [
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_a",
                "name": "get_weather",
                "arguments": '{"city": "Paris"}',
            }
        ],
        "usage": {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8},
    }
    second = {
        "model": "m",
        "input": [
            {"role": "user", "content": "Weather?"},
            {
                "type": "function_call",
                "call_id": "call_a",
                "name": "get_weather",
                "arguments": '{"city": "Paris"}',
            },
            {"type": "function_call_output", "call_id": "call_a", "output": '{"temp_c": 21}'},
        ],
    }
    done = {
        "model": "m-2025",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "21 C."}],
            }
        ],
    }
    doc = incident(
        [exchange(first, answer), exchange(second, done)],
        {"traceId": "t"},
        {"status": "succeeded", "output": None},
    )
    kinds = [e["type"] for e in doc["events"]]
    assert kinds == ["llm_request", "tool_call", "llm_request", "final"]
    first_call, tool, last, _ = doc["events"]
    assert first_call["response"] == {
        "content": None,
        "toolCalls": [{"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}}],
        "model": "m-2025",
    }
    assert first_call["usage"] == answer["usage"]
    assert (tool["tool"], tool["callId"], tool["input"], tool["result"]) == (
        "get_weather",
        "call_a",
        {"city": "Paris"},
        {"temp_c": 21},
    )
    assert last["response"]["content"] == "21 C."
    assert doc["input"] == {"userMessage": "Weather?"}


def _stream(terminal: bool) -> tuple[dict[str, Any], ...]:
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_a",
        "name": "get_weather",
        "arguments": "",
        "status": "in_progress",
    }
    events: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": {"model": "m-2025", "status": "in_progress", "output": []},
        },
        {"type": "response.output_item.added", "output_index": 0, "item": message},
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "output_text", "text": ""},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "delta": "Look",
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "delta": "ing.",
        },
        {"type": "response.output_item.added", "output_index": 1, "item": call},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": '{"city": '},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": '"Paris"}'},
    ]
    if terminal:
        usage = {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}
        whole = {
            "model": "m-2025",
            "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": None,
            "usage": usage,
        }
        events.append({"type": "response.incomplete", "response": whole})
    return tuple(events)


@pytest.mark.parametrize("terminal", [False, True], ids=["cut-short", "incomplete"])
def test_a_stream_without_a_completed_response_is_what_its_item_events_add_up_to(
    terminal: bool,
) -> None:
    """The text and argument deltas of the items as they came, when no `response.completed`
    (or a terminal event without its output) says it whole; an incomplete response keeps its
    reason as the finish reason."""
    doc = incident(
        [exchange({"model": "m", "input": "Weather?", "stream": True}, None, _stream(terminal))],
        {"traceId": "t"},
        {"status": "failed", "output": None},
    )
    (recorded,) = calls_of(doc)
    response = recorded["response"]
    assert response["content"] == "Looking."
    assert response["toolCalls"] == [
        {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}}
    ]
    assert response.get("finishReason") == ("max_output_tokens" if terminal else None)
    assert ("usage" in recorded) == terminal
    assert json.dumps(doc)  # plain JSON
