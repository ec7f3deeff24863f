"""Langfuse trace exports: `{trace, observations: [...]}` (the UI's JSON download).

An observation is a span: its OTel attributes (kept under `metadata.attributes`) go through
the same OpenInference / GenAI / ADK conventions as OTLP files; Langfuse's own fields
(`type`, `input`, `output`, `model`, `level`) fill what the attributes leave open, which is
everything for traces made by the Langfuse SDK callbacks (LangChain/LangGraph).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest import beeai
from corpus_tool.ingest.attrs import flatten
from corpus_tool.ingest.chat import messages, responses_output, tool_message_result
from corpus_tool.ingest.coerce import loads_maybe, obj, parse_time_key, result_value
from corpus_tool.ingest.genai_attrs import gemini_message, output_messages
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.otel import CONVENTIONS
from corpus_tool.ingest.spans import Facts, Span, TraceHeader, to_body
from corpus_tool.model.values import ABSENT

_MAPPED = {
    "id", "traceId", "parentObservationId", "name", "type", "startTime", "endTime",
    "input", "output", "model", "level", "statusMessage", "metadata", "latency",
}  # fmt: skip
_NOISE = {"projectId", "createdAt", "updatedAt", "environment", "internalModelId"}
_TOOL_PREFIXES = ("execute_tool ", "running tool: ", "tool.")


class LangfuseImporter:
    """Langfuse `{trace, observations}` exports."""

    name = "langfuse"

    def sniff(self, data: Any, path: Path) -> bool:
        return (
            isinstance(data, dict)
            and isinstance(data.get("trace"), dict)
            and isinstance(data.get("observations"), list)
        )

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError("not a Langfuse export: expected {trace, observations}", path)
        trace = data["trace"]
        observations = data["observations"]
        if beeai.is_beeai(observations):
            observations = beeai.collapse(observations)
        spans = [_span(o) for o in observations if isinstance(o, dict)]
        spans = _mark_tools(spans)
        agent = {"name": _str(trace.get("name")), "version": _str(trace.get("version"))}
        extra = {k: v for k, v in trace.items() if k not in ("input", "output") and _str(v)}
        body = to_body(
            spans,
            (*CONVENTIONS, Observation()),
            TraceHeader(_str(trace.get("id")), agent, {"trace": extra}),
        )
        if not body["events"]:
            raise InputError("no generation or tool observations in this Langfuse trace", path)
        _use_trace_io(body, trace)
        return [
            Imported(
                self.name,
                body,
                trace_id=_str(trace.get("id")),
                session_id=_str(trace.get("sessionId")),
                label=_str(trace.get("id")),
            )
        ]


IMPORTER = LangfuseImporter()


def _str(value: Any) -> str | None:
    """Langfuse downloads write absent values as the string 'None'."""
    return None if value is None or value in ("None", "", "[]") else str(value)


def _span(obs: dict[str, Any]) -> Span:
    meta = obj(loads_maybe(obs.get("metadata")))  # a dict, or JSON text (framework fixtures)
    attrs = flatten(meta.get("attributes")) if isinstance(meta.get("attributes"), dict) else {}
    more = {k: v for k, v in obs.items() if k not in _MAPPED | _NOISE and v not in (None, {}, [])}
    more.update({f"metadata.{k}": v for k, v in meta.items() if k != "attributes"})
    start = parse_time_key(obs.get("startTime"))
    end = parse_time_key(obs.get("endTime"))
    return Span(
        span_id=str(obs.get("id")),
        parent_id=_str(obs.get("parentObservationId")),
        name=str(obs.get("name") or ""),
        start=obs.get("startTime"),
        end=obs.get("endTime"),
        start_key=start,
        duration_ms=(end - start) * 1000 if end >= start > 0 else None,
        attributes={**attrs, **{f"langfuse.{k}": v for k, v in more.items()}},
        status_error=(obs.get("statusMessage") or "") if obs.get("level") == "ERROR" else None,
        io={"type": obs.get("type"), "model": obs.get("model"), **_io(obs)},
    )


def _io(obs: dict[str, Any]) -> dict[str, Any]:
    """Input and output; an export may hold them as JSON text (`"[{\"role\": ...}]"`,
    `"\"Langfuse is ...\""`): decoded, so a JSON-quoted answer loses its quotes."""
    return {k: None if obs.get(k) == "None" else loads_maybe(obs.get(k)) for k in _IO}


_IO = ("input", "output")


def _mark_tools(spans: list[Span]) -> list[Span]:
    """LangChain tools come as plain SPANs: a span named like a tool the model asked for is one."""
    asked = {
        call["name"]
        for s in spans
        if s.io.get("type") == "GENERATION"
        for call in _output(s.io.get("output"))[1]
    }
    out = []
    for span in spans:
        if span.io.get("type") == "SPAN" and _tool_name(span.name) in asked:
            span = replace(span, io={**span.io, "type": "TOOL"})
        out.append(span)
    return out


def _tool_name(name: str) -> str:
    for prefix in _TOOL_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


class Observation:
    """Langfuse's own observation fields, after the attribute conventions."""

    prefixes: tuple[str, ...] = ("langfuse.usageDetails", "langfuse.modelParameters")

    def kind(self, span: Span) -> str | None:
        return {"GENERATION": "model", "TOOL": "tool", "AGENT": "agent"}.get(
            str(span.io.get("type"))
        )

    def facts(self, span: Span, kind: str) -> Facts:
        io = span.io
        if kind == "model":
            content, calls = _output(io.get("output"))
            params = span.attributes.get("langfuse.modelParameters")
            return {
                "model": io.get("model"),
                "messages": _input(io.get("input")),
                "content": content,
                "calls": calls,
                "usage": span.attributes.get("langfuse.usageDetails"),
                "params": params if isinstance(params, dict) and params else None,
            }
        if kind == "tool":
            return _tool(span)
        return {"agent": span.name, "input": io.get("input"), "output": io.get("output")}


def _tool(span: Span) -> Facts:
    """A tool observation; LangChain callbacks log the whole ToolMessage as its output."""
    output = span.io.get("output")  # null: Langfuse captured no output, not a `None` result
    output = ABSENT if output is None else output
    facts: Facts = {"tool": _tool_name(span.name), "arguments": span.io.get("input")}
    facts["result"] = result_value(output) if output is not ABSENT else ABSENT
    message = tool_message_result(output)
    if message is not None:
        facts["result"], facts["error"], facts["call_id"] = message
    return facts


def _input(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict) and isinstance(value.get("contents"), list):  # a Gemini request
        return [gemini_message(m) for m in value["contents"]]
    return messages(value)


def _output(value: Any) -> tuple[str | None, list[dict[str, Any]]]:
    """A generation's output in any shape the SDKs log: Responses object, message(s), Gemini,
    an OTel `gen_ai.choice` event (`{index, message: {role, content}}`, pydantic-ai), a Chat
    Completions response (`{choices: [{message}]}`)."""
    if isinstance(value, dict) and isinstance(value.get("choices"), list) and value["choices"]:
        value = value["choices"][0]  # a Chat Completions response (Agno's `invoke` span)
    if isinstance(value, dict) and isinstance(value.get("message"), dict) and "role" not in value:
        value = value["message"]
    if isinstance(value, dict) and isinstance(value.get("output"), list):
        return responses_output(value["output"])
    if isinstance(value, dict) and isinstance(value.get("content"), dict):
        msg = gemini_message(value["content"])
        return msg.get("content"), msg.get("tool_calls") or []
    if isinstance(value, dict):
        value = [value]
    if isinstance(value, list):
        content, calls, _ = output_messages(value)
        return content, calls
    return (value if isinstance(value, str) else None), []


def _use_trace_io(body: dict[str, Any], trace: dict[str, Any]) -> None:
    """The trace's own input/output, when the spans did not say."""
    given, answer = loads_maybe(trace.get("input")), loads_maybe(trace.get("output"))
    if body["input"]["user_message"] is None and isinstance(given, str):
        body["input"]["user_message"] = given
    if body["terminal"].get("output") is None and answer not in (None, "None"):
        body["terminal"]["output"] = answer
