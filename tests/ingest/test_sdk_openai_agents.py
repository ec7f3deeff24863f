"""The OpenAI Agents SDK, run offline against a scripted model, exported by its own tracing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import agents
import openai
import yaml

from corpus_tool.cli import main
from corpus_tool.model.events import ToolCallEvent
from tests.ingest.conftest import calls, load, problems
from tests.ingest.fake_openai import Script, completion, weather_script
from tests.ingest.replaying import chat_agent
from tests.replaying import replay_case


class Collector(agents.TracingProcessor):  # type: ignore[misc]
    """Keeps what the SDK exports: `Trace.export()` and every `Span.export()`."""

    def __init__(self) -> None:
        self.traces: list[dict[str, Any]] = []
        self.spans: list[dict[str, Any]] = []

    def on_trace_start(self, trace: Any) -> None:
        pass

    def on_trace_end(self, trace: Any) -> None:
        self.traces.append(trace.export())

    def on_span_start(self, span: Any) -> None:
        pass

    def on_span_end(self, span: Any) -> None:
        self.spans.append(span.export())

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


def _run_agent(tmp_path: Path) -> Path:
    @agents.function_tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return f"sunny in {city}"

    @agents.function_tool
    def get_station(station_id: str) -> str:
        """A weather station by id."""
        raise LookupError(f"no station {station_id}")

    script = weather_script()
    client = openai.AsyncOpenAI(api_key="test", http_client=script.async_client())
    model = agents.OpenAIChatCompletionsModel(model="gpt-4.1-mini", openai_client=client)
    agent = agents.Agent(
        name="weather-bot",
        instructions="Answer weather questions.",
        model=model,
        tools=[get_weather, get_station],
    )
    collector = Collector()
    agents.set_trace_processors([collector])
    result = asyncio.run(agents.Runner.run(agent, "Weather in Tokyo?"))
    assert result.final_output == "It is sunny in Tokyo."
    path = tmp_path / "agents-export.json"
    path.write_text(json.dumps({"trace": collector.traces[0], "spans": collector.spans}))
    return path


RAN = [  # what the scripted run's tools got and gave, as the SDK's spans report it
    ("get_weather", {"city": "Tokyo"}, "sunny in Tokyo"),
    # the SDK itself redacts the exception text in its span error
    ("get_station", {"station_id": "x9"},
     {"type": "ToolError", "message": "Tool execution failed. Error details are redacted."}),
]  # fmt: skip


def test_openai_agents_sdk_export_imports(tmp_path: Path) -> None:
    (run,) = load(_run_agent(tmp_path))
    body = run.body
    assert run.format == "openai-agents"
    assert calls(body) == RAN
    failed = [e for e in body["events"] if e["type"] == "tool_call"][1]
    assert failed["extra"]["output"].startswith("An error occurred while running the tool")
    assert body["terminal"] == {"status": "succeeded", "output": "It is sunny in Tokyo."}
    assert body["input"]["user_message"] == "Weather in Tokyo?"
    assert body["recorded"]["agent"]["name"] == "weather-bot"
    assert problems(body) == []


def test_openai_agents_sdk_export_becomes_a_valid_case(tmp_path: Path, corpus: Path) -> None:
    path = _run_agent(tmp_path)
    assert main(["-C", str(corpus), "add", str(path), "--id", "weather"]) == 0
    trace = yaml.safe_load((corpus / "cases/weather/trace.yaml").read_text())
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert [t["call_id"] for t in tools] == ["call_1", "call_2"]  # linked to the model's requests
    assert main(["-C", str(corpus), "validate"]) == 0


def test_openai_agents_bare_span_list_and_ingest_payload(tmp_path: Path) -> None:
    doc = json.loads(_run_agent(tmp_path).read_text())
    bare = tmp_path / "spans.json"
    bare.write_text(json.dumps(doc["spans"]))
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"data": [doc["trace"], *doc["spans"]]}))
    for path in (bare, payload):
        (run,) = load(path)
        assert calls(run.body) == RAN, path  # the script's truth, not another reading's output
        assert run.body["terminal"] == {"status": "succeeded", "output": "It is sunny in Tokyo."}


def test_openai_agents_case_replays_strictly_against_runtime_agent(
    tmp_path: Path, corpus: Path
) -> None:
    assert main(["-C", str(corpus), "add", str(_run_agent(tmp_path)), "--id", "weather"]) == 0
    sdk_failure_text = "An error occurred while running the tool. Please try again."
    agent = chat_agent(
        "Answer weather questions.", "gpt-4.1-mini", on_error=lambda _err: sdk_failure_text
    )
    result = replay_case(corpus / "cases/weather", agent)
    assert result.divergence is None, result.divergence
    assert result.terminal.to_doc() == {"status": "succeeded", "output": "It is sunny in Tokyo."}
    assert [e.tool for e in result.events if isinstance(e, ToolCallEvent)] == [
        "get_weather",
        "get_station",
    ]


def test_openai_agents_replay_catches_a_changed_prompt(tmp_path: Path, corpus: Path) -> None:
    assert main(["-C", str(corpus), "add", str(_run_agent(tmp_path)), "--id", "weather"]) == 0
    agent = chat_agent("Answer weather questions, briefly.", "gpt-4.1-mini")
    result = replay_case(corpus / "cases/weather", agent)
    assert result.divergence is not None and result.divergence.kind == "ModelRequest"


def _run_handoff(tmp_path: Path) -> Path:
    @agents.function_tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return f"sunny in {city}"

    script = Script([
        completion(calls=[("call_h", "transfer_to_weather_bot", {})]),
        completion(calls=[("call_1", "get_weather", {"city": "Tokyo"})]),
        completion("It is sunny in Tokyo."),
    ])  # fmt: skip
    client = openai.AsyncOpenAI(api_key="test", http_client=script.async_client())
    model = agents.OpenAIChatCompletionsModel(model="gpt-4.1-mini", openai_client=client)
    weather = agents.Agent(
        name="weather_bot", instructions="Weather.", model=model, tools=[get_weather]
    )

    @agents.input_guardrail
    def polite(ctx: Any, agent: Any, text: Any) -> Any:
        return agents.GuardrailFunctionOutput(output_info="ok", tripwire_triggered=False)

    triage = agents.Agent(
        name="triage", instructions="Route.", model=model, handoffs=[weather],
        input_guardrails=[polite],
    )  # fmt: skip
    collector = Collector()
    agents.set_trace_processors([collector])
    assert asyncio.run(agents.Runner.run(triage, "Weather in Tokyo?")).final_output
    path = tmp_path / "handoff.json"
    path.write_text(json.dumps({"trace": collector.traces[0], "spans": collector.spans}))
    return path


def _triage_agent(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
    """The triage -> weather_bot pair, written against the Runtime."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Route."},
        {"role": "user", "content": case_input["user_message"]},
    ]
    while True:
        reply = rt.model(messages, model="gpt-4.1-mini")
        if not reply.tool_calls:
            return {"status": "succeeded", "output": reply.content}
        asked = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls]
        messages.append({"role": "assistant", "content": reply.content, "tool_calls": asked})
        for call in reply.tool_calls:
            result = rt.tool(call.name, call.arguments)
            # the SDK sends a structured result to the model as JSON text, as a handoff does
            shown = result if isinstance(result, str) else json.dumps(result)
            messages.append({"role": "tool", "content": shown, "tool_call_id": call.id})
            if call.name == "transfer_to_weather_bot":
                rt.emit("handoff", **{"from": "triage", "to": "weather_bot"})
                messages[0] = {"role": "system", "content": "Weather."}


def test_openai_agents_handoff_answers_the_transfer_call(tmp_path: Path) -> None:
    (run,) = load(_run_handoff(tmp_path))
    kinds = [(e["type"], e.get("tool") or e.get("to")) for e in run.body["events"]]
    assert kinds == [
        ("model_call", None),
        ("tool_call", "transfer_to_weather_bot"),
        ("handoff", "weather_bot"),
        ("model_call", None),
        ("tool_call", "get_weather"),
        ("model_call", None),
    ]
    # the SDK's handoff tool returns json.dumps({"assistant": ...}): one form, the structure
    assert calls(run.body)[0] == ("transfer_to_weather_bot", {}, {"assistant": "weather_bot"})
    assert run.body["events"][4]["node"] == "weather_bot"
    assert problems(run.body) == []
    guardrails = [s for s in run.body["extra"]["spans"] if s["span_data"]["type"] == "guardrail"]
    assert [(g["span_data"]["name"], g["span_data"]["triggered"]) for g in guardrails] == [
        ("polite", False)
    ]


def test_openai_agents_handoff_case_replays_strictly(tmp_path: Path, corpus: Path) -> None:
    assert main(["-C", str(corpus), "add", str(_run_handoff(tmp_path)), "--id", "handoff"]) == 0
    result = replay_case(corpus / "cases/handoff", _triage_agent)
    assert result.divergence is None, result.divergence
    assert [e.type for e in result.events].count("handoff") == 1
