"""pydantic-ai, run offline against a scripted OpenAI endpoint, instrumented into OTel GenAI."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import openai
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.exceptions import ToolRetryError
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from tests.ingest.conftest import calls, load, problems
from tests.ingest.fake_openai import Script, weather_script
from tests.ingest.otel_export import otlp_json, recording


def weather_agent(station_error: type[Exception] = ModelRetry) -> Agent[None, str]:
    """The weather agent; its station tool fails with `station_error`."""
    agent = Agent(name="weather-bot", instructions="Answer weather questions.")

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return f"sunny in {city}"

    @agent.tool_plain
    def get_station(station_id: str) -> str:
        """A weather station by id."""
        raise station_error(f"no station {station_id}")

    return agent


def run_pydantic_ai(
    tmp_path: Path, agent: Agent[None, str], script: Script | None = None
) -> tuple[Path, Script]:
    """Run `agent` on the scripted endpoint; the OTLP/JSON of its spans, and the script."""
    script = script or weather_script()
    client = openai.AsyncOpenAI(api_key="test", http_client=script.async_client())
    model = OpenAIChatModel("gpt-4.1-mini", provider=OpenAIProvider(openai_client=client))
    with recording("weather-service") as (provider, exporter):
        agent.instrument = InstrumentationSettings(tracer_provider=provider)
        with contextlib.suppress(LookupError):  # a tool's own exception ends the run
            agent.run_sync("Weather in Tokyo?", model=model)
        doc = otlp_json(exporter)
    path = tmp_path / "pydantic-ai-otlp.json"
    path.write_text(json.dumps(doc))
    return path, script


def _tool_answers(messages: list[dict[str, Any]]) -> list[Any]:
    return [m.get("tool_call_id") for m in messages if m.get("role") == "tool"]


def test_pydantic_ai_spans_import_every_tool_answer_the_model_was_sent(tmp_path: Path) -> None:
    path, script = run_pydantic_ai(tmp_path, weather_agent())
    (run,) = load(path)
    assert run.format == "otel-genai"
    assert calls(run.body)[0] == ("get_weather", {"city": "Tokyo"}, "sunny in Tokyo")
    # the ModelRetry the tool raised, as pydantic-ai's tool span records it (its ToolRetryError)
    retried = {"type": ToolRetryError.__name__, "message": "no station x9"}
    assert calls(run.body)[1] == ("get_station", {"station_id": "x9"}, retried)
    models = [e for e in run.body["events"] if e["type"] == "model_call"]
    # what pydantic-ai really sent over HTTP: both answers of the first turn, one message each
    sent = [_tool_answers(r["messages"]) for r in script.requests]
    assert sent == [[], ["call_1", "call_2"]]
    assert [_tool_answers(m["request"]["messages"]) for m in models] == sent
    assert problems(run.body) == []
