"""The OpenAI Agents SDK adapter, in-process, on exports the real SDK made offline."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import agents
import pytest

from corpus_tool.adapters.openai_agents import replayable, routed, run_config
from corpus_tool.cli import main
from corpus_tool.model.events import HandoffEvent, ToolCallEvent
from tests.ingest.test_sdk_openai_agents import _run_agent, _run_handoff
from tests.replaying import replay_case


@agents.function_tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    raise AssertionError("replay never runs a tool's body")


@agents.function_tool
def get_station(station_id: str) -> str:
    """A weather station by id."""
    raise AssertionError("replay never runs a tool's body")


WEATHER = agents.Agent(
    name="weather-bot", instructions="Answer weather questions.", model="gpt-4.1-mini",
    tools=[get_weather, get_station],
)  # fmt: skip


def _case(tmp_path: Path, corpus: Path, export: Path) -> Path:
    assert main(["-C", str(corpus), "add", str(export), "--id", "weather"]) == 0
    return corpus / "cases" / "weather"


def test_sdk_default_failure_text_replays_from_the_recorded_error(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # get_station raised in the recorded run; the SDK showed the model its default text
    case = _case(tmp_path, corpus_dir, _run_agent(tmp_path))

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        agent, config = replayable(WEATHER, rt), run_config(rt)
        result = agents.Runner.run_sync(agent, case_input["user_message"], run_config=config)
        return {"status": "succeeded", "output": result.final_output}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    errors = [e.error for e in replayed.events if isinstance(e, ToolCallEvent) and e.error]
    assert [(e.type, e.message) for e in errors] == [
        ("ToolError", "Tool execution failed. Error details are redacted.")
    ]


def test_streamed_run_replays_the_same_case(tmp_path: Path, corpus_dir: Path) -> None:
    case = _case(tmp_path, corpus_dir, _run_agent(tmp_path))

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        async def streamed() -> Any:
            result = agents.Runner.run_streamed(
                replayable(WEATHER, rt), case_input["user_message"], run_config=run_config(rt)
            )
            async for _ in result.stream_events():
                pass
            return result.final_output

        return {"status": "succeeded", "output": asyncio.run(streamed())}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    assert replayed.terminal.output == "It is sunny in Tokyo."


def test_handoff_is_answered_from_the_recording_and_kept_as_an_event(
    tmp_path: Path, corpus_dir: Path
) -> None:
    case = _case(tmp_path, corpus_dir, _run_handoff(tmp_path))
    weather_bot = agents.Agent(
        name="weather_bot", instructions="Weather.", model="gpt-4.1-mini", tools=[get_weather]
    )

    @agents.input_guardrail
    def polite(ctx: Any, agent: Any, text: Any) -> Any:
        return agents.GuardrailFunctionOutput(output_info="ok", tripwire_triggered=False)

    triage = agents.Agent(
        name="triage", instructions="Route.", model="gpt-4.1-mini", handoffs=[weather_bot],
        input_guardrails=[polite],
    )  # fmt: skip

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        result = agents.Runner.run_sync(
            replayable(triage, rt), case_input["user_message"], run_config=run_config(rt)
        )
        return {"status": "succeeded", "output": result.final_output}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    handoffs = [e for e in replayed.events if isinstance(e, HandoffEvent)]
    assert [(h.source, h.to) for h in handoffs] == [("triage", "weather_bot")]


def test_tools_that_cannot_be_routed_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"WebSearchTool .* only function tools replay"):
        routed(agents.WebSearchTool(), rt=None)  # type: ignore[arg-type]
