"""The LangChain / LangGraph adapter, in-process, on runs of the real frameworks."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any

import yaml
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, ToolException, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt import ToolNode, create_react_agent
from pydantic import AfterValidator

from corpus_tool.adapters.langchain import ReplayChatModel, live_model, live_tools, replay_tools
from corpus_tool.cli import main
from corpus_tool.model.events import ToolCallEvent
from corpus_tool.replay.record import RecordMeta, record
from examples.export_support import ScriptedChatModel
from tests.ingest.langchain_loop import RecordingClient
from tests.ingest.test_sdk_langchain import _run_chain, weather_loop
from tests.ingest.test_sdk_langchain import get_station as chain_station
from tests.ingest.test_sdk_langchain import get_weather as chain_weather
from tests.replaying import replay_case


def _slowly(city: str) -> str:
    time.sleep(0.05)  # the first call's thread reaches its body last, unless replay orders them
    return city


@tool
def get_weather(city: Annotated[str, AfterValidator(_slowly)]) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


@tool
def get_station(station_id: str) -> str:
    """A weather station by id."""
    raise ToolException(f"no station {station_id}")


get_station.handle_tool_error = True  # the tool reports its own failure to the model


TOOLS: list[BaseTool] = [get_weather, get_station]
BOTH = AIMessage("", tool_calls=[
    {"id": "call_1", "name": "get_weather", "args": {"city": "Tokyo"}},
    {"id": "call_2", "name": "get_station", "args": {"station_id": "x9"}},
])  # fmt: skip
ANSWER = AIMessage("It is sunny in Tokyo.")


def _graph(model: Any, tools: list[BaseTool]) -> Any:
    return create_react_agent(model, ToolNode(tools), prompt="Answer weather questions.")


def _run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
    graph = _graph(ReplayChatModel(rt=rt, model="gpt-4.1-mini"), replay_tools(TOOLS, rt))
    state = graph.invoke({"messages": [("user", case_input["user_message"])]})
    return {"status": "succeeded", "output": state["messages"][-1].content}


def _async_run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
    graph = _graph(ReplayChatModel(rt=rt, model="gpt-4.1-mini"), replay_tools(TOOLS, rt))
    state = asyncio.run(graph.ainvoke({"messages": [("user", case_input["user_message"])]}))
    return {"status": "succeeded", "output": state["messages"][-1].content}


def _exported(tmp_path: Path) -> Path:
    """The graph on a scripted model, traced by LangChain's own tracer."""
    from langchain_core.tracers.langchain import LangChainTracer
    from langsmith._internal._serde import dumps_json

    client = RecordingClient()
    tracer = LangChainTracer(client=client, project_name="weather")  # type: ignore[arg-type]
    model = ScriptedChatModel(messages=iter([BOTH, ANSWER]))
    config: Any = {"callbacks": [tracer], "max_concurrency": 1}  # one order in the recording
    _graph(model, TOOLS).invoke({"messages": [("user", "Weather in Tokyo?")]}, config=config)
    tracer.wait_for_futures()
    path = tmp_path / "runs.json"
    path.write_bytes(dumps_json({"post": client.post, "patch": client.patch}))
    return path


def _recorded(tmp_path: Path) -> Path:
    """The same entrypoint replay runs, in record mode around the real model and tools."""
    path = tmp_path / "recorded.json"
    meta = RecordMeta(trace_id="t-weather-1", agent={"name": "weather-bot", "version": "1"},
                      started_at=datetime(2025, 6, 1, tzinfo=timezone.utc))  # fmt: skip
    model = live_model(ScriptedChatModel(messages=iter([BOTH, ANSWER])))
    case_input = {"user_message": "Weather in Tokyo?", "context": {}, "conversation": []}
    record(_run, case_input, model=model, tools=live_tools(TOOLS), meta=meta, out=path)
    return path


def _case(corpus: Path, incident: Path) -> Path:
    assert main(["-C", str(corpus), "add", str(incident), "--id", "weather"]) == 0
    return corpus / "cases" / "weather"


def test_tool_exception_handled_by_the_tool_replays_as_the_same_message(
    tmp_path: Path, corpus_dir: Path
) -> None:
    case = _case(corpus_dir, _exported(tmp_path))
    replayed = replay_case(case, _run)
    assert replayed.divergence is None, replayed.divergence
    calls = [e for e in replayed.events if isinstance(e, ToolCallEvent)]
    assert [(c.tool, c.error.type if c.error else None) for c in calls] == [
        ("get_weather", None),
        ("get_station", "ToolError"),
    ]


def test_async_graph_replays_the_same_case(tmp_path: Path, corpus_dir: Path) -> None:
    case = _case(corpus_dir, _exported(tmp_path))
    replayed = replay_case(case, _async_run)
    assert replayed.divergence is None, replayed.divergence
    assert replayed.terminal.output == "It is sunny in Tokyo."


def test_parallel_tool_calls_reach_the_runtime_in_the_order_the_model_asked(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # LangGraph runs one turn's tool calls in a thread pool; strict replay must not depend on it
    case = _case(corpus_dir, _recorded(tmp_path))
    for _ in range(8):
        replayed = replay_case(case, _run)
        assert replayed.divergence is None, replayed.divergence
        calls = [e.tool for e in replayed.events if isinstance(e, ToolCallEvent)]
        assert calls == ["get_weather", "get_station"]


def test_hand_written_tool_loop_replays_and_catches_the_rebuilt_error(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # the loop catches LookupError itself: the rebuilt error is one
    case = _case(corpus_dir, _run_chain(tmp_path))

    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        model = ReplayChatModel(rt=rt, model="fake-chat-1")
        loop = weather_loop(model, replay_tools([chain_weather, chain_station], rt))
        return {"status": "succeeded", "output": loop(case_input["user_message"], {})}

    replayed = replay_case(case, run)
    assert replayed.divergence is None, replayed.divergence
    assert replayed.terminal.output == "It is sunny in Tokyo."


def test_live_model_says_the_model_id_and_usage_the_provider_answered_with() -> None:
    """What `--model live` books per call: the wrapper passes LangChain's metadata on."""
    said = AIMessage(
        "hi",
        response_metadata={"model_name": "gpt-4.1-mini-2025-04-14"},
        usage_metadata={"input_tokens": 11, "output_tokens": 4, "total_tokens": 15},
    )
    answer = live_model(ScriptedChatModel(messages=iter([said])))(
        [{"role": "user", "content": "x"}]
    )
    assert answer.model == "gpt-4.1-mini-2025-04-14"
    assert answer.usage is not None and (answer.usage.input_tokens, answer.usage.output_tokens) == (
        11,
        4,
    )


# -- a LangGraph agent traced by OpenInference (Arize Phoenix's LangChain instrumentation) -----
PROMPT = "Answer weather questions."


@tool("get_weather")
def oi_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def _openinference_export(tmp_path: Path) -> Path:
    """The ReAct graph on a scripted model (tools bound as ChatOpenAI binds them), traced by
    `openinference-instrumentation-langchain` and written as the OTel SDK's span JSON."""
    from openinference.instrumentation.langchain import LangChainInstrumentor

    from tests.ingest.otel_export import recording

    ask = AIMessage("", tool_calls=[{"id": "call_1", "name": "get_weather",
                                     "args": {"city": "Tokyo"}}])  # fmt: skip
    model = ScriptedChatModel(messages=iter([ask, ANSWER]))
    with recording("weather") as (provider, exporter):
        instrumentor = LangChainInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
        try:
            graph = create_react_agent(model, [oi_weather], prompt=PROMPT)
            graph.invoke({"messages": [("user", "Weather in Tokyo?")]})
        finally:
            instrumentor.uninstrument()
        spans = exporter.get_finished_spans()
    path = tmp_path / "spans.json"
    path.write_text("[" + ",".join(s.to_json() for s in spans) + "]", encoding="utf-8")
    return path


def _react(prompt: str, tools: list[BaseTool]) -> Any:
    def run(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        model = ReplayChatModel(rt=rt, model="gpt-4.1-mini")
        graph = create_react_agent(model, replay_tools(tools, rt), prompt=prompt)
        state = graph.invoke({"messages": [("user", case_input["user_message"])]})
        return {"status": "succeeded", "output": state["messages"][-1].content}

    return run


def test_openinference_exported_langgraph_agent_replays_strictly(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # was: a ModelRequest at step 1 (params.tools, the tools a second time, compared against
    # nothing), then at step 3 (the tool-calling message's content: null exported, "" sent)
    case = _case(corpus_dir, _openinference_export(tmp_path))
    replayed = replay_case(case, _react(PROMPT, [oi_weather]))
    assert replayed.divergence is None, replayed.divergence
    assert replayed.terminal.output == "It is sunny in Tokyo."
    calls = [(e.tool, dict(e.arguments)) for e in replayed.events if isinstance(e, ToolCallEvent)]
    assert calls == [("get_weather", {"city": "Tokyo"})]  # what the scripted model asked for


@tool("get_station")
def oi_station(station_id: str) -> str:
    """A weather station by id."""
    raise AssertionError("never called")


@tool("get_weather")
def oi_weather_upper(city: Annotated[str, AfterValidator(str.upper)]) -> str:
    """Weather for a city."""
    raise AssertionError("never called")


def test_openinference_exported_langgraph_agent_fails_each_mutation(
    tmp_path: Path, corpus_dir: Path
) -> None:
    case = _case(corpus_dir, _openinference_export(tmp_path))
    mutations = {
        "changed prompt": (_react("Answer briefly.", [oi_weather]), "ModelRequest", "messages"),
        "added tool": (_react(PROMPT, [oi_weather, oi_station]), "ModelRequest", "tools"),
        "changed argument": (_react(PROMPT, [oi_weather_upper]), "ToolArguments", "city"),
    }
    for name, (agent, kind, where) in mutations.items():
        found = replay_case(case, agent).divergence
        assert found is not None and found.kind == kind, (name, found)
        assert any(where in d.path for d in found.diff), (name, found.diff)


def test_langsmith_export_holds_the_bound_tools_and_an_added_tool_diverges(
    tmp_path: Path, corpus_dir: Path
) -> None:
    # was: the tools under extra.invocation_params.tools were left in the event's extra, so an
    # added tool replayed as if nothing changed
    case = _case(corpus_dir, _exported(tmp_path))
    trace = yaml.safe_load((case / "trace.yaml").read_text(encoding="utf-8"))
    offered = [convert_to_openai_tool(t) for t in TOOLS]  # what bind_tools gave the model
    models = [e for e in trace["events"] if e["type"] == "model_call"]
    assert [e["request"].get("tools") for e in models] == [offered, offered]
    assert replay_case(case, _run).divergence is None

    def added(case_input: dict[str, Any], rt: Any) -> dict[str, Any]:
        tools = replay_tools([*TOOLS, oi_station_lookup], rt)
        graph = _graph(ReplayChatModel(rt=rt, model="gpt-4.1-mini"), tools)
        state = graph.invoke({"messages": [("user", case_input["user_message"])]})
        return {"status": "succeeded", "output": state["messages"][-1].content}

    found = replay_case(case, added).divergence
    assert found is not None and found.kind == "ModelRequest", found
    assert found.step == 1 and [d.path for d in found.diff][:1] == ["$.request.tools[2]"]


@tool
def oi_station_lookup(name: str) -> str:
    """A weather station by name."""
    raise AssertionError("never called")
