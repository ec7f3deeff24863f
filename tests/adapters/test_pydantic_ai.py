"""The pydantic-ai adapter, in-process, on OTel GenAI spans the real framework exported."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import yaml
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from corpus_tool.adapters.pydantic_ai import Replay, replay_model
from corpus_tool.cli import main
from corpus_tool.model.events import ErrorEvent, ToolCallEvent
from tests.ingest.test_sdk_pydantic_ai import run_pydantic_ai, weather_agent
from tests.replaying import replay_case


def _case(corpus: Path, incident: Path) -> Path:
    assert main(["-C", str(corpus), "add", str(incident), "--id", "weather"]) == 0
    return corpus / "cases" / "weather"


def test_agent_holding_a_model_object_replays_through_the_wrapper(
    tmp_path: Path, corpus_dir: Path
) -> None:
    case = _case(corpus_dir, run_pydantic_ai(tmp_path, weather_agent())[0])
    agent = weather_agent()
    # a model built for production (never called: replay has no network and no key)
    model = OpenAIChatModel("gpt-4.1-mini", provider=OpenAIProvider(api_key="unused"))

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        result = agent.run_sync(case_input["user_message"], model=model, capabilities=[Replay(rt)])
        return {"status": "succeeded", "output": result.output}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    retried = [e.error for e in replayed.events if isinstance(e, ToolCallEvent) and e.error]
    assert [(e.type, e.message) for e in retried] == [("ToolRetryError", "no station x9")]


def test_a_tool_exception_ends_the_replayed_run_as_it_ended_the_recorded_one(
    tmp_path: Path, corpus_dir: Path
) -> None:
    case = _case(corpus_dir, run_pydantic_ai(tmp_path, weather_agent(LookupError))[0])
    agent = weather_agent(LookupError)

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        model = "openai:gpt-4.1-mini"  # a name: resolved to a replay model, no provider built
        result = agent.run_sync(case_input["user_message"], model=model, capabilities=[Replay(rt)])
        return {"status": "succeeded", "output": result.output}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    errors = [e.error.type for e in replayed.events if isinstance(e, ErrorEvent)]
    assert errors == ["LookupError"]
    assert replayed.terminal.status == "failed"


def test_streamed_run_replays_the_same_case(tmp_path: Path, corpus_dir: Path) -> None:
    case = _case(corpus_dir, run_pydantic_ai(tmp_path, weather_agent())[0])
    agent = weather_agent()

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        async def streamed() -> str:
            async with agent.run_stream(
                case_input["user_message"], model="openai:gpt-4.1-mini", capabilities=[Replay(rt)]
            ) as result:
                return await result.get_output()

        return {"status": "succeeded", "output": asyncio.run(streamed())}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    assert replayed.terminal.output == "It is sunny in Tokyo."


def _slow_weather_agent() -> Agent[None, str]:
    """The weather agent whose weather lookup is still running when the station lookup raises:
    pydantic-ai cancels it (in the flaky test's recording this happened only under load)."""
    agent = Agent(name="weather-bot", instructions="Answer weather questions.")

    @agent.tool_plain
    async def get_weather(city: str) -> str:
        """Weather for a city."""
        await asyncio.sleep(60)  # cancelled long before
        return f"sunny in {city}"

    @agent.tool_plain
    def get_station(station_id: str) -> str:
        """A weather station by id."""
        raise LookupError(f"no station {station_id}")

    return agent


def test_a_call_cancelled_by_a_failing_one_is_cancelled_again_in_replay(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # was: the recorded CancelledError was raised as get_weather's own exception, first, and
    # the replayed run ended with CancelledError where the recorded one ended with LookupError
    case = _case(corpus_dir, run_pydantic_ai(tmp_path, _slow_weather_agent())[0])
    trace = yaml.safe_load((case / "trace.yaml").read_text(encoding="utf-8"))
    recorded = [(e["tool"], e["error"]["type"]) for e in trace["events"] if e.get("error")]
    assert recorded == [("get_weather", "CancelledError"), ("get_station", "LookupError")]
    agent = _slow_weather_agent()

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        result = agent.run_sync(
            case_input["user_message"], model="openai:gpt-4.1-mini", capabilities=[Replay(rt)]
        )
        return {"status": "succeeded", "output": result.output}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    assert [e.error.type for e in replayed.events if isinstance(e, ErrorEvent)] == ["LookupError"]
    assert replayed.terminal.status == "failed"


def test_agent_run_under_override_replays_with_the_replay_model_as_the_override(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # docs/agents.md: a team whose tests use `agent.override(model=...)` overrides with
    # `replay_model(rt, <the production model>)`; `Replay(rt)` routes the tools
    case = _case(corpus_dir, run_pydantic_ai(tmp_path, weather_agent())[0])
    agent = weather_agent()

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        with agent.override(model=replay_model(rt, "openai:gpt-4.1-mini")):
            result = agent.run_sync(case_input["user_message"], capabilities=[Replay(rt)])
        return {"status": "succeeded", "output": result.output}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    assert replayed.terminal.output == "It is sunny in Tokyo."
    calls = [(e.tool, dict(e.arguments)) for e in replayed.events if isinstance(e, ToolCallEvent)]
    assert calls == [("get_weather", {"city": "Tokyo"}), ("get_station", {"station_id": "x9"})]
