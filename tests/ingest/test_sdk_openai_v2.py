"""OpenTelemetry's own `opentelemetry-instrumentation-openai-v2`: chat spans only, no tool spans.

Every tool result and error is in the next chat span's input messages (`role: tool`, linked
by `tool_call_id`); the case must hold them as tool calls, and both model ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems
from tests.ingest.fake_openai import chat_until_answer, weather_script
from tests.ingest.otel_export import otlp_json, recording
from tests.ingest.replaying import chat_agent
from tests.replaying import replay_case

SYSTEM = "Answer weather questions."


@pytest.fixture
def v2_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, list[tuple[str, dict[str, Any], Any]]]]:
    # content capture on span attributes, as the instrumentation documents it
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    truth: list[tuple[str, dict[str, Any], Any]] = []

    def run_tool(call: Any) -> str:
        args = json.loads(call.function.arguments)
        if call.function.name == "get_weather":
            truth.append((call.function.name, args, f"sunny in {args['city']}"))
            return f"sunny in {args['city']}"
        err = LookupError(f"no station {args['station_id']}")
        truth.append((call.function.name, args, {"type": "LookupError", "message": str(err)}))
        return f"Error: {type(err).__name__}: {err}"

    with recording("weather-service") as (provider, exporter):
        instrumentor = OpenAIInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
        try:
            client = openai.OpenAI(api_key="test", http_client=weather_script().sync_client())
            tracer = provider.get_tracer("weather-bot")
            with tracer.start_as_current_span("weather-bot"):  # one trace for the whole run
                messages: list[dict[str, Any]] = [
                    {"role": "system", "content": SYSTEM},
                    {"role": "user", "content": "Weather in Tokyo?"},
                ]
                assert chat_until_answer(client, messages, run_tool) == "It is sunny in Tokyo."
        finally:
            instrumentor.uninstrument()
        path = tmp_path / "openai-v2.json"
        path.write_text(json.dumps(otlp_json(exporter)))
    yield path, truth


def test_openai_v2_chat_spans_become_tool_calls(v2_run: Any) -> None:
    path, truth = v2_run
    (run,) = load(path)
    assert run.format == "otel-genai"
    assert calls(run.body) == truth
    kinds = [e["type"] for e in run.body["events"]]
    assert kinds == ["model_call", "tool_call", "tool_call", "model_call"]
    # chat_until_answer asks for gpt-4.1-mini; the scripted endpoint answers with the dated id
    assert run.body["recorded"]["models"] == ["gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"]
    assert problems(run.body) == []


def test_openai_v2_case_replays_strictly(v2_run: Any, corpus: Path) -> None:
    path, _ = v2_run
    assert main(["-C", str(corpus), "add", str(path), "--id", "v2-weather"]) == 0
    agent = chat_agent(
        SYSTEM, "gpt-4.1-mini-2025-04-14", on_error=lambda err: f"Error: {err.type}: {err.message}"
    )
    result = replay_case(corpus / "cases/v2-weather", agent)
    assert result.divergence is None, result.divergence
    assert result.terminal.to_doc() == {"status": "succeeded", "output": "It is sunny in Tokyo."}
