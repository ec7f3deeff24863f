"""The OpenAI Agents SDK adapter, in-process, on exports the real SDK made offline."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import agents
import openai
import pytest
import yaml

from corpus_tool.adapters.openai_agents import replayable, routed, run_config
from corpus_tool.cli import main
from corpus_tool.model.events import HandoffEvent, ModelCallEvent, ToolCallEvent
from tests.ingest.fake_openai import Script, weather_script
from tests.ingest.test_sdk_openai_agents import Collector, _run_agent, _run_handoff
from tests.ingest.test_sdk_openai_responses import _call as responses_call
from tests.ingest.test_sdk_openai_responses import _response as responses_body
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


class Logged(agents.Model):
    """A team's own `Model`: the SDK's Chat Completions model behind a wrapper that logs. It
    says no name (no `.model`); the SDK's generation spans name the model inside."""

    def __init__(self, inner: agents.Model) -> None:
        self._inner = inner
        self.seen = 0

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        self.seen += 1
        return await self._inner.get_response(*args, **kwargs)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        return self._inner.stream_response(*args, **kwargs)


def _custom_model_export(tmp_path: Path) -> Path:
    """The weather run with its model wrapped in `Logged`, exported by the SDK's tracing."""
    script = weather_script()
    client = openai.AsyncOpenAI(api_key="test", http_client=script.async_client())
    inner = agents.OpenAIChatCompletionsModel(model="gpt-4.1-mini", openai_client=client)
    agent = WEATHER.clone(model=Logged(inner), tools=[_real_weather, _real_station])
    collector = Collector()
    agents.set_trace_processors([collector])
    result = asyncio.run(agents.Runner.run(agent, "Weather in Tokyo?"))
    assert result.final_output == "It is sunny in Tokyo."
    path = tmp_path / "custom-model-export.json"
    path.write_text(json.dumps({"trace": collector.traces[0], "spans": collector.spans}))
    return path


@agents.function_tool(name_override="get_weather")
def _real_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


@agents.function_tool(name_override="get_station")
def _real_station(station_id: str) -> str:
    """A weather station by id."""
    raise LookupError(f"no station {station_id}")


def test_custom_model_object_replays_under_the_recorded_model_name(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # was: ReplayModel named the SDK's default model (gpt-4.1): a `$.model` ModelRequest
    case = _case(tmp_path, corpus_dir, _custom_model_export(tmp_path))
    recorded = _models(case)
    assert recorded == ["gpt-4.1-mini"] * 2  # the wrapped model's name, as the SDK's spans say
    agent = WEATHER.clone(model=Logged(agents.OpenAIChatCompletionsModel(
        model="gpt-4.1-mini", openai_client=openai.AsyncOpenAI(api_key="unused"))))  # fmt: skip

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        result = agents.Runner.run_sync(
            replayable(agent, rt), case_input["user_message"], run_config=run_config(rt)
        )
        return {"status": "succeeded", "output": result.final_output}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    assert [e.model for e in replayed.events if isinstance(e, ModelCallEvent)] == recorded


def test_explicit_model_name_is_the_one_replay_asks_for(tmp_path: Path, corpus_dir: Path) -> None:
    case = _case(tmp_path, corpus_dir, _custom_model_export(tmp_path))
    agent = WEATHER.clone(model=Logged(agents.OpenAIChatCompletionsModel(
        model="gpt-4.1-mini", openai_client=openai.AsyncOpenAI(api_key="unused"))))  # fmt: skip

    def run_as(name: str) -> Any:
        def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
            copy = replayable(agent, rt, model=name)
            result = agents.Runner.run_sync(copy, case_input["user_message"],
                                            run_config=run_config(rt))  # fmt: skip
            return {"status": "succeeded", "output": result.final_output}

        return run

    assert replay_case(case, run_as("gpt-4.1-mini")).divergence is None
    wrong = replay_case(case, run_as("gpt-4o")).divergence
    assert wrong is not None and wrong.kind == "ModelRequest"
    assert [d.path for d in wrong.diff] == ["$.model"]


def _models(case: Path) -> list[str]:
    trace = yaml.safe_load((case / "trace.yaml").read_text(encoding="utf-8"))
    return [e["model"] for e in trace["events"] if e["type"] == "model_call"]


def _responses_two_turns(tmp_path: Path) -> tuple[Path, list[tuple[str, dict[str, Any], Any]]]:
    """A Responses-API run that calls one tool per turn, two turns, exported by the SDK."""
    truth: list[tuple[str, dict[str, Any], Any]] = []

    @agents.function_tool
    def get_order(order_id: str) -> dict[str, Any]:
        """An order by id."""
        truth.append(("get_order", {"order_id": order_id}, {"eligible": True}))
        return {"eligible": True}

    @agents.function_tool
    def check_refund(order_id: str) -> str:
        """Whether the refund went through."""
        truth.append(("check_refund", {"order_id": order_id}, "refunded"))
        return "refunded"

    script = Script([
        responses_body([responses_call("call_a", "get_order", {"order_id": "A100"})]),
        responses_body([responses_call("call_b", "check_refund", {"order_id": "A100"})]),
        responses_body([{"type": "message", "id": "msg_1", "role": "assistant",
                         "status": "completed",
                         "content": [{"type": "output_text", "text": "Refunded.",
                                      "annotations": []}]}]),
    ])  # fmt: skip
    client = openai.AsyncOpenAI(api_key="test", http_client=script.async_client())
    model = agents.OpenAIResponsesModel(model="gpt-4.1-mini", openai_client=client)
    agent = REFUNDS.clone(model=model, tools=[get_order, check_refund])
    collector = Collector()
    agents.set_trace_processors([collector])
    assert asyncio.run(agents.Runner.run(agent, "Refund A100")).final_output == "Refunded."
    path = tmp_path / "responses-two-turns.json"
    path.write_text(json.dumps({"trace": collector.traces[0], "spans": collector.spans}))
    return path, truth


@agents.function_tool
def get_order(order_id: str) -> dict[str, Any]:
    """An order by id."""
    raise AssertionError("replay never runs a tool's body")


@agents.function_tool
def check_refund(order_id: str) -> str:
    """Whether the refund went through."""
    raise AssertionError("replay never runs a tool's body")


REFUNDS = agents.Agent(name="refund-bot", instructions="Refunds.", model="gpt-4.1-mini",
                       tools=[get_order, check_refund])  # fmt: skip


def test_responses_case_with_a_tool_call_per_turn_replays_on_its_tool_calls(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # response spans hold no call ids: every turn's fallback id was `call_0`, and the SDK
    # stopped the run at turn 2 ("Model reused a completed tool call ID")
    path, truth = _responses_two_turns(tmp_path)
    assert main(["-C", str(corpus_dir), "add", str(path), "--id", "r2", "--allow-incomplete"]) == 0

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        result = agents.Runner.run_sync(replayable(REFUNDS, rt), case_input["user_message"] or "",
                                        run_config=run_config(rt))  # fmt: skip
        return {"status": "succeeded", "output": result.final_output}

    replayed = replay_case(corpus_dir / "cases" / "r2", run)
    assert replayed.divergence is None, replayed.divergence
    assert replayed.terminal.status == "succeeded"  # the answer's text: response spans hold none
    ran = [e.to_doc() for e in replayed.events if isinstance(e, ToolCallEvent)]
    assert [(e["tool"], e["arguments"], e.get("result")) for e in ran] == truth
