"""Writes an MLflow trace (`Trace.to_json()`) of a scripted tool loop: `python -m
tests.ingest.mlflow_trace OUT.json`. Needs `mlflow-tracing` (or `mlflow`).

The real `mlflow` package traces the run: an AGENT span (`@mlflow.trace`), a CHAT_MODEL span per
OpenAI-compatible call (inputs: the request's keyword arguments; outputs: the ChatCompletion,
as MLflow's OpenAI autolog records them), a TOOL span per tool (one raises). Only the HTTP
answers are scripted (`fake_openai`), and the trace is taken from MLflow's in-memory trace
manager instead of being sent to a tracking server (this one needs none).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

os.environ["MLFLOW_ENABLE_ASYNC_TRACE_LOGGING"] = "false"

import mlflow
import mlflow.tracking.fluent
import openai
from mlflow.entities import SpanType
from mlflow.tracing.export.mlflow_v3 import MlflowV3SpanExporter
from mlflow.tracing.trace_manager import InMemoryTraceManager

from tests.ingest.fake_openai import weather_script

CAPTURED: list[Any] = []
_pop = InMemoryTraceManager.pop_trace


def _keep(self: Any, trace_id: Any) -> Any:
    got = _pop(self, trace_id)
    if got is not None:
        CAPTURED.append(got.trace)
    return got


def _offline() -> None:
    """Keep each finished trace; send nothing anywhere (no tracking server here)."""
    InMemoryTraceManager.pop_trace = _keep  # type: ignore[method-assign]
    MlflowV3SpanExporter._log_trace = lambda self, *a, **k: None  # type: ignore[method-assign]
    MlflowV3SpanExporter._log_spans = lambda self, *a, **k: None  # type: ignore[method-assign]
    mlflow.tracking.fluent._get_experiment_id = lambda: "0"
    mlflow.set_tracking_uri("http://127.0.0.1:9")


SCRIPT = weather_script()
CLIENT = openai.OpenAI(api_key="sk-test", base_url="http://model.test/v1",
                       http_client=SCRIPT.sync_client())  # fmt: skip


@mlflow.trace(span_type=SpanType.TOOL)
def get_weather(city: str) -> str:
    return f"sunny, 21C in {city}"


@mlflow.trace(span_type=SpanType.TOOL)
def get_station(station_id: str) -> str:
    raise LookupError(f"no station {station_id}")


def chat(**request: Any) -> Any:
    with mlflow.start_span("Completions", span_type=SpanType.CHAT_MODEL) as span:
        span.set_inputs(request)
        completion = CLIENT.chat.completions.create(**request)
        span.set_outputs(completion)
        return completion


@mlflow.trace(span_type=SpanType.AGENT)
def weather_agent(question: str) -> str:
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    tools = {"get_weather": get_weather, "get_station": get_station}
    while True:
        reply = chat(model="gpt-4.1-mini", messages=list(messages), temperature=0.2)
        message = reply.choices[0].message
        if not message.tool_calls:
            return str(message.content)
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            try:
                content = tools[call.function.name](**json.loads(call.function.arguments))
            except LookupError as err:
                content = f"Error: {err}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


def main(out: str) -> None:
    _offline()
    weather_agent("Weather in Tokyo?")
    (trace,) = CAPTURED
    with open(out, "w", encoding="utf-8") as f:
        f.write(trace.to_json(pretty=True))


if __name__ == "__main__":
    main(sys.argv[1])
