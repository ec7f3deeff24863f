"""Record the framework examples' incidents: each team agent run in its real framework, traced
by the framework's own tracing, against a scripted model and the in-memory shop.

    python examples/record_framework_incidents.py [--out examples]

Writes, under `--out`:
  openai_agents_agent/incidents/refund-gateway-timeout.json  Agents SDK `Trace.export()` + spans
  langchain_agent/incidents/refund-gateway-timeout.json      LangChain tracer run payloads
  langchain_agent/incidents/refund-recorded.json             native, recorded through the adapter
  pydantic_ai_agent/incidents/refund-gateway-timeout.json    pydantic-ai OTel GenAI spans (OTLP)

The story is the same each time: the customer asks for a refund of order O-1001, the model
looks the order up and refunds it, the payments gateway times out once, the model tries again
and tells the customer the refund id. Ids and clock stamps the tracers invent are pinned, so
re-running changes no byte.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from examples import shop  # noqa: E402
from examples.export_support import (  # noqa: E402
    ScriptedChatModel,
    ScriptedOpenAI,
    completion,
    pinned,
)

QUESTION = "Order O-1001 arrived broken, please refund it."
ORDER = {"order_id": "O-1001", "status": "delivered", "amount_cents": 19900, "currency": "CNY"}
ANSWER = "Your refund R900 of 199.00 CNY is on its way."
GATEWAY = "payments gateway did not answer in 5s"
MODEL_TURNS: list[list[tuple[str, str, dict[str, Any]]]] = [
    [("call_1", "get_order", {"order_id": "O-1001"})],
    [("call_2", "create_refund", {"order_id": "O-1001", "amount_cents": 19900})],
    [("call_3", "create_refund", {"order_id": "O-1001", "amount_cents": 19900})],
]


def _story() -> None:
    shop.reset({"O-1001": ORDER}, {"create_refund": [TimeoutError(GATEWAY)]})


# -- OpenAI Agents SDK --------------------------------------------------------------------------
def openai_agents() -> dict[str, Any]:
    """The SDK's Chat Completions model against the script; its trace processor keeps exports."""
    import agents
    from agents.models.openai_provider import OpenAIProvider
    from openai import AsyncOpenAI

    from examples.openai_agents_agent.agent import refund_desk

    kept = _Exports()
    agents.set_trace_processors([kept])
    script = ScriptedOpenAI([completion(calls=t) for t in MODEL_TURNS] + [completion(ANSWER)])
    client = AsyncOpenAI(api_key="example", http_client=script.async_client())
    config = agents.RunConfig(
        model_provider=OpenAIProvider(openai_client=client, use_responses=False),
        workflow_name="refund-desk",
    )
    _story()
    result = agents.Runner.run_sync(refund_desk, QUESTION, run_config=config)
    assert result.final_output == ANSWER, result.final_output
    return {"trace": kept.traces[0], "spans": kept.spans}


class _Exports:
    """A trace processor that keeps `Trace.export()` and every `Span.export()`."""

    def __init__(self) -> None:
        self.traces: list[dict[str, Any]] = []
        self.spans: list[dict[str, Any]] = []

    def on_trace_start(self, trace: Any) -> None: ...

    def on_trace_end(self, trace: Any) -> None:
        self.traces.append(trace.export())

    def on_span_start(self, span: Any) -> None: ...

    def on_span_end(self, span: Any) -> None:
        self.spans.append(span.export())

    def shutdown(self) -> None: ...

    def force_flush(self) -> None: ...


# -- LangChain / LangGraph ----------------------------------------------------------------------
def _scripted_chat() -> ScriptedChatModel:
    from langchain_core.messages import AIMessage

    turns = [
        AIMessage("", tool_calls=[{"id": i, "name": n, "args": a} for i, n, a in turn])
        for turn in MODEL_TURNS
    ]
    return ScriptedChatModel(messages=iter([*turns, AIMessage(ANSWER)]))


def langchain() -> dict[str, Any]:
    """The ReAct graph on the scripted model, traced by LangChain's own LangSmith tracer."""
    from langchain_core.tracers.langchain import LangChainTracer

    from examples.langchain_agent.agent import TOOLS, build

    client = _LangSmithPayloads()
    tracer = LangChainTracer(client=client, project_name="refund-desk")  # type: ignore[arg-type]
    _story()
    state = build(_scripted_chat(), TOOLS).invoke(
        {"messages": [("user", QUESTION)]}, config={"callbacks": [tracer]}
    )
    assert state["messages"][-1].content == ANSWER
    tracer.wait_for_futures()
    # serialized as the LangSmith client serializes what it sends
    from langsmith._internal._serde import dumps_json

    return json.loads(dumps_json({"post": client.post, "patch": client.patch}))


class _LangSmithPayloads:
    """Stands in for the LangSmith client: keeps the run payloads the tracer sends."""

    def __init__(self) -> None:
        self.post: list[dict[str, Any]] = []
        self.patch: list[dict[str, Any]] = []

    def create_run(self, **run: Any) -> None:
        self.post.append(run)

    def update_run(self, run_id: Any, **run: Any) -> None:
        self.patch.append({"id": run_id, **run})

    def flush(self) -> None: ...


def langchain_recorded() -> dict[str, Any]:
    """The entrypoint replay runs, in record mode: the adapter around the real model and tools."""
    from corpus_tool import RecordMeta, record
    from corpus_tool.adapters.langchain import live_model, live_tools
    from examples.langchain_agent.agent import TOOLS, run

    meta = RecordMeta(
        trace_id="t-refund-recorded-0001",
        agent={"name": "refund-desk", "version": "1.0.0"},
        started_at=datetime(2025, 6, 1, 10, 0, tzinfo=timezone.utc),
        timezone="UTC",
        seed=7,
    )
    case_input = {"user_message": QUESTION, "context": {}, "conversation": []}
    _story()
    return record(run, case_input, model=live_model(_scripted_chat()), tools=live_tools(TOOLS),
                  meta=meta, timer=lambda name: 400.0 if name == "model" else 120.0)  # fmt: skip


# -- pydantic-ai --------------------------------------------------------------------------------
def pydantic_ai() -> dict[str, Any]:
    """The agent on pydantic-ai's OpenAI model against the script, instrumented into OTel."""
    from openai import AsyncOpenAI
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from examples.pydantic_ai_agent.agent import refund_desk

    exporter, provider = _otel()
    script = ScriptedOpenAI([completion(calls=t) for t in MODEL_TURNS] + [completion(ANSWER)])
    client = AsyncOpenAI(api_key="example", http_client=script.async_client())
    model = OpenAIChatModel("gpt-4.1-mini", provider=OpenAIProvider(openai_client=client))
    _story()
    Agent.instrument_all(InstrumentationSettings(tracer_provider=provider))
    try:
        result = refund_desk.run_sync(QUESTION, model=model)
    finally:
        Agent.instrument_all(False)
        provider.shutdown()
    assert result.output == ANSWER, result.output
    return _otlp_json(exporter.get_finished_spans())


def _otel() -> tuple[Any, Any]:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "refund-desk"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter, provider


def _otlp_json(spans: Any) -> dict[str, Any]:
    """OTLP/JSON as the Collector's file exporter writes it (ids in hex)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    doc: dict[str, Any] = MessageToDict(encode_spans(spans))
    for resource in doc["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return doc


# -----------------------------------------------------------------------------------------------
STORIES: dict[str, Callable[[], dict[str, Any]]] = {
    "openai_agents_agent/incidents/refund-gateway-timeout.json": openai_agents,
    "langchain_agent/incidents/refund-gateway-timeout.json": langchain,
    "langchain_agent/incidents/refund-recorded.json": langchain_recorded,
    "pydantic_ai_agent/incidents/refund-gateway-timeout.json": pydantic_ai,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "examples")
    args = parser.parse_args(argv)
    for name, story in STORIES.items():
        path = args.out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        doc = pinned(json.loads(json.dumps(story(), default=str)))
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
