"""Phoenix span JSON: spans whose kind is a top-level `span_kind`, not an attribute.

The shape is what Phoenix's own encoder writes (Arize-ai/phoenix,
src/phoenix/trace/span_json_encoder.py at 097032ac8d170635bdd79ffacdd8ed1e428fa21c, read back
by span_json_decoder.py at 0764df61775a43c63dd4aca83c8c5f4ec42bbc6c): exactly the keys `name,
context {trace_id, span_id}, span_kind, parent_id, start_time, end_time, status_code,
status_message, attributes, events, conversation`, OpenInference attributes as dotted keys with
message lists. The spans below are written here in that shape (no Phoenix file is copied).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import Cli

TRACE = "6f1d0c2a9b8e4f7a8c1d2e3f4a5b6c7d"


def _span(span_id: str, name: str, kind: str, start: str, **attributes: Any) -> dict[str, Any]:
    return {
        "name": name,
        "context": {"trace_id": TRACE, "span_id": span_id},
        "span_kind": kind,
        "parent_id": None if kind == "AGENT" else "a000000000000001",
        "start_time": f"2025-03-04T10:00:{start}+00:00",
        "end_time": f"2025-03-04T10:00:{start}.500000+00:00",
        "status_code": "OK",
        "status_message": "",
        "attributes": attributes,
        "events": [],
        "conversation": None,
    }


def _weather_call(call_id: str, city: str) -> dict[str, Any]:
    return {
        "tool_call.id": call_id,
        "tool_call.function.name": "get_weather",
        "tool_call.function.arguments": json.dumps({"city": city}),
    }


SYSTEM = {"message.role": "system", "message.content": "Answer about the weather."}
USER = {"message.role": "user", "message.content": "Weather in Oslo and Rome?"}
ASKED = {
    "message.role": "assistant",
    "message.tool_calls": [_weather_call("call_a", "Oslo"), _weather_call("call_b", "Rome")],
}
SPANS = [
    _span("a000000000000001", "Weather agent", "AGENT", "00",
          **{"input.value": USER["message.content"]}),
    _span(
        "b000000000000001", "ChatCompletion", "LLM", "01",
        **{"llm.model_name": "gpt-4o-mini-2024-07-18", "llm.input_messages": [SYSTEM, USER],
           "llm.output_messages": [ASKED], "llm.token_count.prompt": 40},
    ),
    _span("c000000000000001", "get_weather", "TOOL", "02",
          **{"tool.name": "get_weather", "tool_call.id": "call_a",
             "input.value": json.dumps({"city": "Oslo"}), "output.value": "rain, 9°C"}),
    _span("c000000000000002", "get_weather", "TOOL", "03",
          **{"tool.name": "get_weather", "tool_call.id": "call_b",
             "input.value": json.dumps({"city": "Rome"}), "output.value": "sun, 21°C"}),
    _span(
        "b000000000000002", "ChatCompletion", "LLM", "04",
        **{"llm.model_name": "gpt-4o-mini-2024-07-18",
           "llm.input_messages": [SYSTEM, USER, ASKED,
                                  {"message.role": "tool", "message.tool_call_id": "call_a",
                                   "message.content": "rain, 9°C"},
                                  {"message.role": "tool", "message.tool_call_id": "call_b",
                                   "message.content": "sun, 21°C"}],
           "llm.output_messages": [{"message.role": "assistant",
                                    "message.content": "Oslo: rain. Rome: sun."}]},
    ),
]  # fmt: skip


def test_phoenix_span_kind_spans_import_as_openinference(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    export = tmp_path / "phoenix-spans.json"
    export.write_text(json.dumps(SPANS), encoding="utf-8")
    assert all("openinference.span.kind" not in s["attributes"] for s in SPANS)
    result = cli("-C", corpus_dir, "add", export, "--id", "phoenix")
    assert result.code == 0, result.err
    trace = yaml.safe_load((corpus_dir / "cases/phoenix/trace.yaml").read_text(encoding="utf-8"))
    assert trace["source"]["format"] == "openinference"
    models = [e for e in trace["events"] if e["type"] == "model_call"]
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    llm_spans = [s for s in SPANS if s["span_kind"] == "LLM"]
    tool_spans = [s for s in SPANS if s["span_kind"] == "TOOL"]
    assert len(models) == len(llm_spans) and len(tools) == len(tool_spans)
    assert [(t["tool"], t["call_id"], t["arguments"], t["result"]) for t in tools] == [
        (
            s["attributes"]["tool.name"],
            s["attributes"]["tool_call.id"],
            json.loads(s["attributes"]["input.value"]),
            s["attributes"]["output.value"],
        )
        for s in tool_spans
    ]
    final = llm_spans[-1]["attributes"]["llm.output_messages"][0]["message.content"]
    assert models[-1]["response"]["content"] == final
    assert models[0]["model"] == llm_spans[0]["attributes"]["llm.model_name"]


def test_phoenix_span_kind_error_status_is_the_tool_error(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    spans = json.loads(json.dumps(SPANS))
    failed = spans[3]
    failed.update(status_code="ERROR", status_message="TimeoutError: weather service")
    del failed["attributes"]["output.value"]
    export = tmp_path / "phoenix-error.json"
    export.write_text(json.dumps(spans), encoding="utf-8")
    assert cli("-C", corpus_dir, "add", export, "--id", "phoenix-error").code == 0
    trace = yaml.safe_load((corpus_dir / "cases/phoenix-error/trace.yaml").read_text())
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert tools[1]["error"] == {"type": "TimeoutError", "message": "weather service"}
