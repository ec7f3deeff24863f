"""Vercel AI SDK telemetry: `ai.*` spans as JS `ReadableSpan` JSON.

The spans below are written here (no third-party file is copied) in the shape the AI SDK
records them, after what it documents and tests:
- span names and attributes: the AI SDK's telemetry docs ("Collected data",
  https://ai-sdk.dev/docs/ai-sdk-core/telemetry), and a real capture of `ai` 5.0.253
  (Grace/genai-interlingua, testdata/vercel/in.json at 373c40ca19a94bd344912ad236574a49639e9e5f,
  in /work/shared/samples/vercel_ai_sdk): `ai.prompt.messages` and `ai.response.toolCalls` as
  JSON text, `ai.response.toolCalls` items `{toolCallId, toolName, input}` with `input` itself
  JSON text, `ai.toolCall.args` / `.result` as JSON text, `ai.usage.promptTokens`;
- message parts (`tool-call` with `input`, `tool-result` with `output: {type, value}`): the
  AI SDK's own snapshots, vercel/ai packages/ai/src/generate-text/__snapshots__/
  generate-text.test.ts.snap at a1cf2fb1ebc14ae657c51cbae8ea0aafc3cd6de6;
- the span object: `@opentelemetry/sdk-trace-base`'s ReadableSpan (`name`, `spanContext`
  `{traceId, spanId}`, `parentSpanId`, `startTime`/`endTime` as `[seconds, nanoseconds]`,
  `status.code` 2 for ERROR, `attributes`, `events`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import Cli
from tests.ingest.conftest import added_trace, json_file

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SYSTEM = {"role": "system", "content": "You are a support agent. Use the tools you are given."}
USER = {"role": "user", "content": [{"type": "text", "text": "Where is order A-1187?"}]}
CALL = {"type": "tool-call", "toolCallId": "call_9Rt", "toolName": "lookup_order",
        "input": {"order_id": "A-1187"}}  # fmt: skip
ORDER = {"order_id": "A-1187", "status": "in transit"}
RESULT = {"type": "tool-result", "toolCallId": "call_9Rt", "toolName": "lookup_order",
          "output": {"type": "json", "value": ORDER}}  # fmt: skip
SCHEMA = {"type": "object", "properties": {"order_id": {"type": "string"}}}
TOOL_DEF = {"type": "function", "name": "lookup_order", "description": "Look up an order.",
            "inputSchema": SCHEMA}  # fmt: skip


def _span(span_id: str, parent: str | None, name: str, second: int, **attrs: Any) -> dict[str, Any]:
    return {
        "name": name,
        "kind": 0,
        "spanContext": {"traceId": TRACE, "spanId": span_id, "traceFlags": 1},
        "parentSpanId": parent,
        "startTime": [1788788010 + second, 849000000],
        "endTime": [1788788010 + second, 990000000],
        "status": {"code": 0},
        "attributes": {"ai.operationId": name, "operation.name": f"{name} support_triage",
                       "ai.telemetry.functionId": "support_triage", **attrs},
        "events": [],
    }  # fmt: skip


def _step(span_id: str, second: int, messages: list[Any], **attrs: Any) -> dict[str, Any]:
    return _span(
        span_id, "a000000000000001", "ai.generateText.doGenerate", second,
        **{"ai.model.provider": "openai.chat", "ai.model.id": "gpt-4o-mini",
           "ai.settings.temperature": 0.7, "ai.settings.maxOutputTokens": 1024,
           "ai.prompt.messages": json.dumps(messages),
           "ai.prompt.tools": [json.dumps(TOOL_DEF)],
           "ai.response.model": "gpt-4o-mini-2024-07-18",
           "ai.usage.promptTokens": 412, "ai.usage.completionTokens": 27, **attrs},
    )  # fmt: skip


SPANS = [
    _span("a000000000000001", None, "ai.generateText", 0,
          **{"ai.model.id": "gpt-4o-mini",
             "ai.prompt": json.dumps({"system": SYSTEM["content"],
                                      "prompt": "Where is order A-1187?"}),
             "ai.response.text": "Order A-1187 is in transit."}),
    _step("b000000000000001", 1, [SYSTEM, USER],
          **{"ai.response.finishReason": "tool-calls",
             "ai.response.toolCalls": json.dumps([{"toolCallId": "call_9Rt",
                                                   "toolName": "lookup_order",
                                                   "input": json.dumps(CALL["input"])}])}),
    _span("c000000000000001", "a000000000000001", "ai.toolCall", 2,
          **{"ai.toolCall.name": "lookup_order", "ai.toolCall.id": "call_9Rt",
             "ai.toolCall.args": json.dumps(CALL["input"]),
             "ai.toolCall.result": json.dumps(ORDER)}),
    _step("b000000000000002", 3,
          [SYSTEM, USER, {"role": "assistant", "content": [CALL]},
           {"role": "tool", "content": [RESULT]}],
          **{"ai.response.finishReason": "stop",
             "ai.response.text": "Order A-1187 is in transit."}),
]  # fmt: skip


def test_ai_sdk_spans_import_model_calls_and_tool_calls(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    trace = added_trace(cli, corpus_dir, json_file(tmp_path, "vercel", SPANS), "vercel")
    assert trace["source"]["format"] == "vercel-ai"
    models = [e for e in trace["events"] if e["type"] == "model_call"]
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    steps = [s for s in SPANS if s["name"] == "ai.generateText.doGenerate"]
    runs = [s for s in SPANS if s["name"] == "ai.toolCall"]
    assert len(models) == len(steps) == 2 and len(tools) == len(runs) == 1
    for event, span in zip(models, steps, strict=True):
        a = span["attributes"]
        assert event["model"] == a["ai.response.model"]
        assert event["response"]["content"] == a.get("ai.response.text")
        assert len(event["request"]["messages"]) == len(json.loads(a["ai.prompt.messages"]))
        assert event["request"]["tools"] == [json.loads(t) for t in a["ai.prompt.tools"]]
    asked = json.loads(steps[0]["attributes"]["ai.response.toolCalls"])
    assert [(c["id"], c["name"], c["arguments"]) for c in models[0]["response"]["tool_calls"]] == [
        (c["toolCallId"], c["toolName"], json.loads(c["input"])) for c in asked
    ]
    a = runs[0]["attributes"]
    assert [(t["tool"], t["call_id"], t["arguments"], t["result"]) for t in tools] == [
        (a["ai.toolCall.name"], a["ai.toolCall.id"], json.loads(a["ai.toolCall.args"]),
         json.loads(a["ai.toolCall.result"]))
    ]  # fmt: skip
    second = models[1]["request"]["messages"]
    assert second[2]["tool_calls"][0]["arguments"] == CALL["input"]
    assert second[3]["role"] == "tool" and second[3]["tool_call_id"] == RESULT["toolCallId"]
    assert trace["terminal"]["output"] == SPANS[0]["attributes"]["ai.response.text"]


def test_ai_sdk_failed_tool_span_is_the_tool_error(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    spans = json.loads(json.dumps(SPANS))
    failed = spans[2]
    del failed["attributes"]["ai.toolCall.result"]
    failed["status"] = {"code": 2, "message": "order service timed out"}
    raised = {"exception.type": "TimeoutError", "exception.message": "order service timed out"}
    failed["events"] = [
        {"name": "exception", "time": [1788788012, 990000000], "attributes": raised}
    ]
    trace = added_trace(cli, corpus_dir, json_file(tmp_path, "vercel-error", spans), "vercel-error")
    (tool,) = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert tool["error"] == {"type": "TimeoutError", "message": "order service timed out"}
    assert "result" not in tool


def _otlp_spans(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def _otlp_attrs(span: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}


def test_ai_sdk_spans_in_an_otlp_export_import(samples: Path, corpus_dir: Path, cli: Cli) -> None:
    """A capture of `ai` 5.0.253 over OTLP/JSON (Grace/genai-interlingua testdata/vercel/in.json,
    see shared/samples/SOURCES.md): its `ai.*` spans carry no `gen_ai.operation.name`; the
    OTLP importer reads them through the AI SDK's attributes instead of refusing the file."""
    export = samples / "vercel_ai_sdk" / "genai-interlingua_vercel_in.json"
    source = json.loads(export.read_text(encoding="utf-8"))
    result = cli("-C", corpus_dir, "add", export, "--id", "vercel-otlp")
    assert result.code == 0, result.err
    trace = yaml.safe_load((corpus_dir / "cases/vercel-otlp/trace.yaml").read_text("utf-8"))
    spans = [_otlp_attrs(s) for s in _otlp_spans(source)]
    steps = [a for a in spans if a["ai.operationId"] == "ai.generateText.doGenerate"]
    runs = [a for a in spans if a["ai.operationId"] == "ai.toolCall"]
    models = [e for e in trace["events"] if e["type"] == "model_call"]
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert len(models) == len(steps) and len(tools) == len(runs) == 1
    asked = json.loads(steps[0]["ai.response.toolCalls"])
    assert [(c["id"], c["name"]) for c in models[0]["response"]["tool_calls"]] == [
        (c["toolCallId"], c["toolName"]) for c in asked
    ]
    assert models[0]["model"] == steps[0]["ai.response.model"]
    assert [(t["tool"], t["call_id"], t["arguments"], t["result"]) for t in tools] == [
        (a["ai.toolCall.name"], a["ai.toolCall.id"], json.loads(a["ai.toolCall.args"]),
         json.loads(a["ai.toolCall.result"]))
        for a in runs
    ]  # fmt: skip


def test_ai_sdk_tool_in_a_langfuse_export_keeps_its_name(
    samples: Path, corpus_dir: Path, cli: Cli
) -> None:
    """A Langfuse export of an AI SDK chatbot (evilmartians/agent-prism, see SOURCES.md): its
    TOOL observation is named `ai.toolCall`; the tool is the one `ai.toolCall.name` names."""
    export = samples / "vercel_ai_sdk" / "agent-prism_storybook_langfuse-3.json"
    source = json.loads(export.read_text(encoding="utf-8"))
    result = cli("-C", corpus_dir, "add", export, "--id", "vercel-langfuse")
    assert result.code == 0, result.err
    trace = yaml.safe_load((corpus_dir / "cases/vercel-langfuse/trace.yaml").read_text("utf-8"))
    metas = [o["metadata"] for o in source["observations"]]
    attrs = [(json.loads(m) if isinstance(m, str) else m).get("attributes", {}) for m in metas]
    names = [a["ai.toolCall.name"] for a in attrs if a.get("ai.operationId") == "ai.toolCall"]
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert [t["tool"] for t in tools] == names
