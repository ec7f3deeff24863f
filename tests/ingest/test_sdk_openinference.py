"""OpenInference spans from the real OpenInference OpenAI instrumentor, exported two ways:
OTLP/JSON (the otel-genai importer) and the OTel SDK's span JSON (the openinference importer)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openinference.instrumentation.openai as oi
import pytest
from opentelemetry.trace import Status, StatusCode

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems
from tests.ingest.fake_openai import chat_until_answer, weather_script
from tests.ingest.otel_export import instrumented, otlp_json
from tests.ingest.replaying import chat_agent
from tests.replaying import replay_case

SYSTEM = "Answer weather questions."


def _loop(client: Any, tracer: Any) -> str:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Weather in Tokyo?"},
    ]
    with tracer.start_as_current_span(
        "weather-bot", attributes={"openinference.span.kind": "AGENT"}
    ):
        return chat_until_answer(client, messages, lambda call: _tool(tracer, call))


def _tool(tracer: Any, call: Any) -> str:
    attributes = {
        "openinference.span.kind": "TOOL",
        "tool.name": call.function.name,
        "tool_call.id": call.id,
        "input.value": call.function.arguments,
    }
    with tracer.start_as_current_span(
        call.function.name,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        city = json.loads(call.function.arguments).get("city")
        if city is None:
            err = LookupError("no station x9")
            span.record_exception(err)
            span.set_status(Status(StatusCode.ERROR, str(err)))
            return f"Error: {err}"
        span.set_attribute("output.value", f"sunny in {city}")
        return f"sunny in {city}"


@pytest.fixture
def finished(tmp_path: Path) -> Iterator[Any]:
    with instrumented(oi.OpenAIInstrumentor(), weather_script()) as (client, tracer, exporter):
        assert _loop(client, tracer) == "It is sunny in Tokyo."
        yield exporter


def _span_json(exporter: Any, path: Path) -> Path:
    path.write_text("[" + ",".join(s.to_json() for s in exporter.get_finished_spans()) + "]")
    return path


EXPECTED = [
    ("get_weather", {"city": "Tokyo"}, "sunny in Tokyo"),
    ("get_station", {"station_id": "x9"}, {"type": "LookupError", "message": "no station x9"}),
]


def test_openinference_span_json_imports(tmp_path: Path, finished: Any) -> None:
    (run,) = load(_span_json(finished, tmp_path / "spans.json"))
    assert run.format == "openinference"
    assert calls(run.body) == EXPECTED
    assert run.body["terminal"] == {"status": "succeeded", "output": "It is sunny in Tokyo."}
    assert run.body["recorded"]["agent"]["name"] == "weather-bot"
    assert problems(run.body) == []


def test_openinference_in_otlp_json_imports_the_same(tmp_path: Path, finished: Any) -> None:
    path = tmp_path / "otlp.json"
    path.write_text(json.dumps(otlp_json(finished)))
    (run,) = load(path)
    assert run.format == "otel-genai"
    assert calls(run.body) == EXPECTED
    spans = load(_span_json(finished, tmp_path / "spans.json"))[0].body
    assert [e["type"] for e in run.body["events"]] == [e["type"] for e in spans["events"]]


def test_openinference_case_replays_strictly_against_runtime_agent(
    tmp_path: Path, corpus: Path, finished: Any
) -> None:
    path = _span_json(finished, tmp_path / "spans.json")
    assert main(["-C", str(corpus), "add", str(path), "--id", "oi-weather"]) == 0
    trace_model = load(path)[0].body["events"][0]["model"]
    agent = chat_agent(SYSTEM, trace_model, on_error=lambda err: f"Error: {err.message}")
    result = replay_case(corpus / "cases/oi-weather", agent)
    assert result.divergence is None, result.divergence
