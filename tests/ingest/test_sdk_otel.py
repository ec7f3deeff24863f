"""OpenTelemetry GenAI spans from a real instrumentation (OpenLLMetry's OpenAI instrumentor)
around a scripted model, tools traced with the OTel API as the GenAI conventions say."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import opentelemetry.instrumentation.openai as instrumentation
import pytest
from opentelemetry.trace import Status, StatusCode

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems
from tests.ingest.fake_openai import chat_until_answer, weather_script
from tests.ingest.otel_export import instrumented, legacy_batches, otlp_json
from tests.ingest.replaying import chat_agent
from tests.replaying import replay_case

SYSTEM = "Answer weather questions."
TOOLS: dict[str, Any] = {}


def _weather(city: str) -> str:
    return f"sunny in {city}"


def _station(station_id: str) -> str:
    raise LookupError(f"no station {station_id}")


def _agent_loop(client: Any, tracer: Any, question: str) -> str:
    """A hand-written agent: the model via the instrumented client, tools in execute_tool spans."""
    tools = {"get_weather": _weather, "get_station": _station}
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": question},
    ]
    with tracer.start_as_current_span("invoke_agent weather-bot") as agent_span:
        agent_span.set_attribute("gen_ai.operation.name", "invoke_agent")
        agent_span.set_attribute("gen_ai.agent.name", "weather-bot")
        return chat_until_answer(client, messages, lambda call: _execute(tracer, tools, call))


def _execute(tracer: Any, tools: dict[str, Any], call: Any) -> str:
    name, args = call.function.name, json.loads(call.function.arguments)
    with tracer.start_as_current_span(
        f"execute_tool {name}", record_exception=False, set_status_on_exception=False
    ) as span:
        span.set_attribute("gen_ai.operation.name", "execute_tool")
        span.set_attribute("gen_ai.tool.name", name)
        span.set_attribute("gen_ai.tool.call.id", call.id)
        span.set_attribute("gen_ai.tool.call.arguments", call.function.arguments)
        try:
            result = tools[name](**args)
        except LookupError as err:
            span.record_exception(err)
            span.set_attribute("error.type", type(err).__name__)
            span.set_status(Status(StatusCode.ERROR, str(err)))
            return f"Error: {err}"
        span.set_attribute("gen_ai.tool.call.result", result)
        return result


@pytest.fixture
def otel_run(tmp_path: Path) -> Iterator[dict[str, Any]]:
    instrumentor = instrumentation.OpenAIInstrumentor()
    with instrumented(instrumentor, weather_script()) as (client, tracer, exporter):
        assert _agent_loop(client, tracer, "Weather in Tokyo?") == "It is sunny in Tokyo."
        yield otlp_json(exporter)


def _write(tmp_path: Path, doc: dict[str, Any], name: str = "otlp.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_otel_genai_otlp_json_imports(tmp_path: Path, otel_run: dict[str, Any]) -> None:
    (run,) = load(_write(tmp_path, otel_run))
    body = run.body
    assert run.format == "otel-genai"
    assert calls(body) == [
        ("get_weather", {"city": "Tokyo"}, "sunny in Tokyo"),
        ("get_station", {"station_id": "x9"}, {"type": "LookupError", "message": "no station x9"}),
    ]
    assert body["terminal"] == {"status": "succeeded", "output": "It is sunny in Tokyo."}
    assert body["recorded"]["agent"] == {"name": "weather-bot", "version": "1.4.2"}
    # asked for gpt-4.1-mini (chat_until_answer), answered by the dated id (the script)
    assert body["recorded"]["models"] == ["gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"]
    assert problems(body) == []


def test_otel_genai_legacy_batches_import_the_same(
    tmp_path: Path, otel_run: dict[str, Any]
) -> None:
    current = load(_write(tmp_path, otel_run))[0].body
    legacy = load(_write(tmp_path, legacy_batches(otel_run), "batches.json"))[0].body
    assert legacy["events"] == current["events"]


def test_otel_genai_case_replays_strictly_against_runtime_agent(
    tmp_path: Path, corpus: Path, otel_run: dict[str, Any]
) -> None:
    assert (
        main(["-C", str(corpus), "add", str(_write(tmp_path, otel_run)), "--id", "otel-weather"])
        == 0
    )
    agent = chat_agent(
        SYSTEM, "gpt-4.1-mini-2025-04-14", on_error=lambda err: f"Error: {err.message}"
    )
    result = replay_case(corpus / "cases/otel-weather", agent)
    assert result.divergence is None, result.divergence
    assert [e.type for e in result.events] == [
        "model_call",
        "tool_call",
        "tool_call",
        "model_call",
    ]


def test_otel_genai_case_matches_the_model_id_asked_for_or_the_one_that_answered(
    tmp_path: Path, corpus: Path, otel_run: dict[str, Any]
) -> None:
    path = _write(tmp_path, otel_run)
    assert main(["-C", str(corpus), "add", str(path), "--id", "otel-weather"]) == 0
    on_error = lambda err: f"Error: {err.message}"  # noqa: E731
    # the agent asked for gpt-4.1-mini (chat_until_answer); the script answered as a dated id
    for asked in ("gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"):
        result = replay_case(corpus / "cases/otel-weather", chat_agent(SYSTEM, asked, on_error))
        assert result.divergence is None, (asked, result.divergence)
    result = replay_case(corpus / "cases/otel-weather", chat_agent(SYSTEM, "gpt-4o", on_error))
    assert result.divergence is not None and result.divergence.kind == "ModelRequest"
    assert [d.path for d in result.divergence.diff] == ["$.model"]
