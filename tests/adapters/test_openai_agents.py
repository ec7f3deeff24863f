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
from tests.ingest.test_sdk_openai_responses import _run as _run_responses
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


def test_responses_api_case_replays_strictly_on_its_tool_calls(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # response spans hold no request: strict replay checks every tool call and notes the rest
    path, truth = _run_responses(tmp_path)
    assert main(["-C", str(corpus_dir), "add", str(path), "--id", "r", "--allow-incomplete"]) == 0

    @agents.function_tool
    def get_order(order_id: str) -> dict[str, Any]:
        """An order by id."""
        raise AssertionError("replay never runs a tool's body")

    @agents.function_tool
    def check_refund(order_id: str) -> str:
        """Whether the refund went through."""
        raise AssertionError("replay never runs a tool's body")

    refunds = agents.Agent(name="refund-bot", instructions="Refunds.", model="gpt-4.1-mini",
                           tools=[get_order, check_refund])  # fmt: skip

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        agent, config = replayable(refunds, rt), run_config(rt)
        asked = case_input["user_message"] or ""  # response spans hold no user message either
        result = agents.Runner.run_sync(agent, asked, run_config=config)
        return {"status": "succeeded", "output": result.final_output}

    replayed = replay_case(corpus_dir / "cases" / "r", run)
    assert replayed.divergence is None, replayed.divergence
    ran = [e.to_doc() for e in replayed.events if isinstance(e, ToolCallEvent)]
    assert [(e["tool"], e["arguments"], e.get("result", e.get("error"))) for e in ran] == truth
