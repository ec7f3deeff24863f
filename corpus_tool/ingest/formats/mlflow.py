"""MLflow traces: the JSON `mlflow.get_trace(...).to_json()` writes (`mlflow.entities.Trace`).

`{"info": {trace_id, request_time, state, trace_metadata, tags, ...}, "data": {"spans": [...]}}`;
each span `{trace_id, span_id, parent_span_id, name, start_time_unix_nano, end_time_unix_nano,
status: {code, message}, events, attributes}` (MLflow 3; MLflow 2's `context.span_id`,
`parent_id` and `start_time`/`end_time` in nanoseconds are read too). Every attribute value is
JSON text: `mlflow.spanType` (`"LLM"`, `"CHAT_MODEL"`, `"TOOL"`, `"AGENT"`, ...),
`mlflow.spanInputs` and `mlflow.spanOutputs` (for a model call, the request's keyword
arguments and the Chat Completions response, as MLflow's OpenAI tracing records them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.chat import messages, text_of, tool_calls
from corpus_tool.ingest.coerce import iso_from_ns, obj
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.spans import Facts, Span, SpanEvent, TraceHeader, to_body
from corpus_tool.model.values import ABSENT

_KINDS = {"LLM": "model", "CHAT_MODEL": "model", "TOOL": "tool", "AGENT": "agent"}
_INPUTS, _OUTPUTS, _TYPE = "mlflow.spanInputs", "mlflow.spanOutputs", "mlflow.spanType"
_ERROR = {"ERROR", "STATUS_CODE_ERROR"}


class MLflowImporter:
    """`mlflow.entities.Trace` JSON."""

    name = "mlflow"

    def sniff(self, data: Any, path: Path) -> bool:
        if not isinstance(data, dict) or set(data) - {"info", "data"}:
            return False
        info, body = data.get("info"), data.get("data")
        return (
            isinstance(info, dict)
            and bool(info.get("trace_id") or info.get("request_id"))
            and isinstance(body, dict)
            and isinstance(body.get("spans"), list)
        )

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError(
                "not an MLflow trace: expected {info: {trace_id}, data: {spans}}", path
            )
        info = data["info"]
        spans = [_span(s) for s in data["data"]["spans"] if isinstance(s, dict)]
        trace_id = str(info.get("trace_id") or info.get("request_id"))
        tags = obj(info.get("tags"))
        run = TraceHeader(trace_id, {"name": tags.get("mlflow.traceName")}, {"mlflow_info": info})
        body = to_body(spans, (MLflowSpans(),), run)
        if not body["events"]:
            names = sorted({s.name for s in spans})[:8]
            raise InputError(
                "no LLM, CHAT_MODEL or TOOL spans in this MLflow trace; "
                f"span names seen: {', '.join(names) or 'none'}",
                path,
            )
        return [Imported(self.name, body, trace_id=trace_id, label=trace_id)]


IMPORTER = MLflowImporter()


def _decoded(value: Any) -> Any:
    """MLflow stores every attribute as JSON text."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _span(raw: dict[str, Any]) -> Span:
    context = obj(raw.get("context"))
    start_ns = raw.get("start_time_unix_nano", raw.get("start_time"))
    end_ns = raw.get("end_time_unix_nano", raw.get("end_time"))
    start = int(start_ns) if isinstance(start_ns, (int, str)) and str(start_ns).isdigit() else 0
    end = int(end_ns) if isinstance(end_ns, (int, str)) and str(end_ns).isdigit() else 0
    attrs = {str(k): _decoded(v) for k, v in obj(raw.get("attributes")).items()}
    status = obj(raw.get("status"))
    code = str(status.get("code") or status.get("status_code") or "")
    parent = raw.get("parent_span_id", raw.get("parent_id"))
    return Span(
        span_id=str(raw.get("span_id") or context.get("span_id")),
        parent_id=str(parent) if parent else None,
        name=str(raw.get("name") or ""),
        start=iso_from_ns(start) if start else None,
        end=iso_from_ns(end) if end else None,
        start_key=start / 1e9,
        duration_ms=(end - start) / 1e6 if end >= start > 0 else None,
        attributes=attrs,
        events=tuple(_event(e) for e in raw.get("events") or [] if isinstance(e, dict)),
        status_error=str(status.get("message") or status.get("description") or "")
        if code in _ERROR
        else None,
    )


def _event(raw: dict[str, Any]) -> SpanEvent:
    stamp = raw.get("time_unix_nano", raw.get("timestamp"))
    time = iso_from_ns(stamp) if isinstance(stamp, int) else None
    attrs = {str(k): v for k, v in obj(raw.get("attributes")).items()}
    return SpanEvent(str(raw.get("name")), time, attrs)


class MLflowSpans:
    """The `mlflow.*` span attributes."""

    prefixes: tuple[str, ...] = (_TYPE, _INPUTS, _OUTPUTS, "mlflow.traceRequestId",
                                 "mlflow.spanFunctionName", "mlflow.chat.")  # fmt: skip

    def kind(self, span: Span) -> str | None:
        return _KINDS.get(str(span.attributes.get(_TYPE) or "").upper())

    def facts(self, span: Span, kind: str) -> Facts:
        a = span.attributes
        if kind == "model":
            return _model(a)
        if kind == "tool":
            name = a.get("mlflow.spanFunctionName") or span.name
            inputs = a.get(_INPUTS)
            return {
                "tool": name,
                "call_id": None,
                "arguments": inputs if isinstance(inputs, dict) else {"input": inputs},
                "result": a.get(_OUTPUTS, ABSENT),
            }
        return {"agent": span.name, "input": _text_input(a.get(_INPUTS)), "output": a.get(_OUTPUTS)}


def _text_input(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        (only,) = value.values()
        return only
    return value


_REQUEST_KEYS = {"messages", "model", "tools", "temperature", "stream"}


def _model(a: dict[str, Any]) -> Facts:
    inputs, outputs = a.get(_INPUTS), a.get(_OUTPUTS)
    request = inputs if isinstance(inputs, dict) else {}
    asked = request.get("messages", inputs if isinstance(inputs, (list, str)) else None)
    facts: Facts = {
        "messages": messages(asked) or messages(a.get("mlflow.chat.messages") or []),
        "tools": request.get("tools") or a.get("mlflow.chat.tools"),
        "temperature": request.get("temperature"),
        "params": {k: v for k, v in request.items() if k not in _REQUEST_KEYS} or None,
        "requested_model": request.get("model"),
        "model": request.get("model"),
    }
    if isinstance(outputs, str):
        facts["content"] = outputs
        return facts
    response = obj(outputs)
    choices = response.get("choices") if isinstance(response.get("choices"), list) else []
    choice = obj(choices[0]) if choices else {}
    message = obj(choice.get("message"))
    facts.update(
        model=response.get("model") or facts["model"],
        content=text_of(message.get("content")),
        calls=tool_calls(message.get("tool_calls") or []),
        finish_reason=choice.get("finish_reason"),
        usage=response.get("usage"),
    )
    return facts
