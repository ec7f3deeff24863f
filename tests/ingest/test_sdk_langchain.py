"""langchain-core, run offline with a scripted chat model, traced by its own LangChainTracer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import tool
from langchain_core.tracers.langchain import LangChainTracer
from langsmith._internal._serde import dumps_json

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load, problems
from tests.ingest.langchain_loop import RecordingClient, tool_loop
from tests.ingest.replaying import chat_agent
from tests.replaying import replay_case


class ScriptedChatModel(GenericFakeChatModel):
    model: str = "fake-chat-1"  # reported as ls_model_name / invocation_params.model


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


@tool
def get_station(station_id: str) -> str:
    """A weather station by id."""
    raise LookupError(f"no station {station_id}")


def weather_loop(model: Any, tools: list[Any]) -> Callable[[str, RunnableConfig], Any]:
    """The weather loop: a failed station lookup is told to the model as `Error: ...`."""
    return tool_loop(
        model, tools, "Answer weather questions.", LookupError, lambda e: f"Error: {e}"
    )


def _run_chain(tmp_path: Path) -> Path:
    model = ScriptedChatModel(messages=iter([
        AIMessage(content="", tool_calls=[
            {"name": "get_weather", "args": {"city": "Tokyo"}, "id": "call_1"},
            {"name": "get_station", "args": {"station_id": "x9"}, "id": "call_2"},
        ]),
        AIMessage(content="It is sunny in Tokyo."),
    ]))  # fmt: skip
    loop = weather_loop(model, [get_weather, get_station])

    client = RecordingClient()
    tracer = LangChainTracer(client=client, project_name="weather")  # type: ignore[arg-type]
    chain = RunnableLambda(loop).with_config(run_name="weather-chain")
    assert (
        chain.invoke("Weather in Tokyo?", config={"callbacks": [tracer]}) == "It is sunny in Tokyo."
    )
    tracer.wait_for_futures()
    path = tmp_path / "langsmith-runs.json"
    path.write_bytes(dumps_json({"post": client.post, "patch": client.patch}))
    return path


RAN = [  # what the scripted run's tools got and gave (get_station raises LookupError)
    ("get_weather", {"city": "Tokyo"}, "sunny in Tokyo"),
    ("get_station", {"station_id": "x9"}, {"type": "LookupError", "message": "no station x9"}),
]


def test_langchain_runs_import_tools_errors_and_output(tmp_path: Path) -> None:
    (run,) = load(_run_chain(tmp_path))
    body = run.body
    assert run.format == "langsmith"
    assert calls(body) == RAN
    assert body["terminal"] == {"status": "succeeded", "output": "It is sunny in Tokyo."}
    assert body["recorded"]["models"] == ["fake-chat-1"]
    assert body["recorded"]["agent"]["name"] == "weather-chain"
    assert problems(body) == []


def test_langchain_flat_run_list_imports_the_same(tmp_path: Path) -> None:
    doc = json.loads(_run_chain(tmp_path).read_text())
    merged = {r["id"]: dict(r) for r in doc["post"]}
    for patch in doc["patch"]:
        merged[patch["id"]].update({k: v for k, v in patch.items() if v is not None})
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps(list(reversed(merged.values()))))  # order comes from dotted_order
    (run,) = load(flat)
    assert calls(run.body) == RAN  # the script's truth, not the other reading's output
    assert run.body["terminal"] == {"status": "succeeded", "output": "It is sunny in Tokyo."}


def test_langchain_case_replays_strictly_against_runtime_agent(
    tmp_path: Path, corpus: Path
) -> None:
    assert main(["-C", str(corpus), "add", str(_run_chain(tmp_path)), "--id", "lc-weather"]) == 0
    agent = chat_agent(
        "Answer weather questions.", "fake-chat-1",
        on_error=lambda err: f"Error: {err.message}", named_results=True,
    )  # fmt: skip
    result = replay_case(corpus / "cases/lc-weather", agent)
    assert result.divergence is None, result.divergence
    assert result.terminal.to_doc() == {"status": "succeeded", "output": "It is sunny in Tokyo."}
    trace = yaml.safe_load((corpus / "cases/lc-weather/trace.yaml").read_text())
    assert trace["source"]["format"] == "langsmith"


# A LangSmith run export (`Client.list_runs`, one `Run` per row), written by hand in the shape
# of langchain-ai/langsmith-sdk python/langsmith/schemas.py `Run` (commit
# d3f159af2015da0b0723505171252404fb8ca986): a chat model bound to Anthropic-style tools, whose
# `extra.invocation_params` is the model's parameters plus the bound kwargs (langchain-ai/
# langchain libs/core/langchain_core/language_models/chat_models.py `_get_invocation_params`,
# commit 6f006baabdcd6cacd350338f8110a86df741524d).
ANTHROPIC_TOOLS = [
    {"name": "get_weather", "description": "Weather for a city.",
     "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                      "required": ["city"]}},
]  # fmt: skip


def _langsmith_runs() -> list[dict[str, Any]]:
    trace = "0190a000-0000-7000-8000-000000000001"
    model = {
        "id": "0190a000-0000-7000-8000-000000000002", "name": "ChatAnthropic", "run_type": "llm",
        "trace_id": trace, "parent_run_id": trace,
        "dotted_order": "20250601T100000000000Z" + trace + ".20250601T100000100000Z"
                        "0190a000-0000-7000-8000-000000000002",
        "start_time": "2025-06-01T10:00:00.100000", "end_time": "2025-06-01T10:00:00.900000",
        "status": "success",
        "extra": {"invocation_params": {"model": "claude-sonnet-4-5", "max_tokens": 1024,
                                        "_type": "anthropic-chat", "stop": None,
                                        "tools": ANTHROPIC_TOOLS},
                  "metadata": {"ls_provider": "anthropic", "ls_model_name": "claude-sonnet-4-5"}},
        "inputs": {"messages": [[
            {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages",
                                                    "HumanMessage"],
             "kwargs": {"content": "Weather in Tokyo?", "type": "human"}},
        ]]},
        "outputs": {"generations": [[{
            "text": "It is sunny in Tokyo.", "type": "ChatGeneration",
            "message": {"lc": 1, "type": "constructor",
                        "id": ["langchain", "schema", "messages", "AIMessage"],
                        "kwargs": {"content": "It is sunny in Tokyo.", "type": "ai",
                                   "tool_calls": [], "invalid_tool_calls": []}},
        }]], "llm_output": None},
    }  # fmt: skip
    root = {
        "id": trace, "name": "weather-agent", "run_type": "chain", "trace_id": trace,
        "parent_run_id": None, "dotted_order": "20250601T100000000000Z" + trace,
        "start_time": "2025-06-01T10:00:00", "end_time": "2025-06-01T10:00:01",
        "status": "success", "extra": {"metadata": {}},
        "inputs": {"input": "Weather in Tokyo?"}, "outputs": {"output": "It is sunny in Tokyo."},
    }  # fmt: skip
    return [root, model]


def test_langsmith_export_keeps_the_tools_under_invocation_params(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(_langsmith_runs()), encoding="utf-8")
    (run,) = load(path)
    assert run.format == "langsmith"
    (model,) = [e for e in run.body["events"] if e["type"] == "model_call"]
    assert model["request"]["tools"] == ANTHROPIC_TOOLS
