"""The pydantic-ai adapter, in-process, on OTel GenAI spans the real framework exported."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from corpus_tool.adapters.pydantic_ai import Replay
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
