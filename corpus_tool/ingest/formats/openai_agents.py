"""OpenAI Agents SDK traces: `Trace.export()` / `Span.export()` dicts.

Accepts `{trace, spans}`, a bare span list, or the tracing ingest payload `{"data": [...]}`
(traces and spans mixed). Generation spans are model calls; function spans tool calls
(`input` a JSON string, `output` a string, `error` the tool's error); handoff spans handoffs.
Response spans (the default Responses API model) export only a response id, so a run made
with it has model calls without model or messages: the completeness check says so.
Guardrail and custom spans are kept under `extra`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.body import first_user_text, terminal_from, trace_body
from corpus_tool.ingest.build import error_event, handoff_event, model_event, tool_event
from corpus_tool.ingest.chat import messages, text_of
from corpus_tool.ingest.coerce import (
    arguments,
    error,
    error_type_in,
    obj,
    parse_time_key,
    result_value,
)
from corpus_tool.ingest.imported import Imported
from corpus_tool.model.values import ABSENT


class OpenAIAgentsImporter:
    """The OpenAI Agents SDK's exported traces and spans."""

    name = "openai-agents"

    def sniff(self, data: Any, path: Path) -> bool:
        return bool(_items(data)) and any(_is_span(i) for i in _items(data))

    def load(self, data: Any, path: Path) -> list[Imported]:
        items = _items(data)
        spans = [i for i in items if _is_span(i)]
        if not spans:
            raise InputError("not an OpenAI Agents SDK export: no `trace.span` objects", path)
        traces = {str(i.get("id")): i for i in items if i.get("object") == "trace"}
        by_trace: dict[str, list[dict[str, Any]]] = {}
        for span in spans:
            by_trace.setdefault(str(span.get("trace_id")), []).append(span)
        return [_run(tid, group, traces.get(tid, {})) for tid, group in by_trace.items()]


IMPORTER = OpenAIAgentsImporter()


def _items(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict) and isinstance(data.get("spans"), list):
        trace = [data["trace"]] if isinstance(data.get("trace"), dict) else []
        return [i for i in trace + data["spans"] if isinstance(i, dict)]
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    return [i for i in data if isinstance(i, dict)] if isinstance(data, list) else []


def _is_span(item: dict[str, Any]) -> bool:
    return item.get("object") == "trace.span" and isinstance(item.get("span_data"), dict)


def _run(trace_id: str, spans: list[dict[str, Any]], trace: dict[str, Any]) -> Imported:
    spans = sorted(spans, key=lambda s: str(s.get("started_at") or ""))
    agents = {
        s.get("id"): s["span_data"].get("name")
        for s in spans
        if s["span_data"].get("type") == "agent"
    }
    events: list[dict[str, Any]] = []
    kept: list[dict[str, Any]] = []
    for span in spans:
        made = _event(span, _node(span, spans, agents))
        if made is not None:
            events.append(made)
        elif span["span_data"].get("type") != "agent":
            kept.append(span)
    events = _responses_calls(_handoff_answers(events))
    events.extend(_agent_errors(spans, events))
    first_agent = next(iter(agents.values()), None)
    body = trace_body(
        events,
        started_at=str(spans[0].get("started_at"))
        if spans and spans[0].get("started_at")
        else None,
        agent={"name": first_agent or trace.get("workflow_name")},
        user_message=first_user_text(events),
        terminal=terminal_from(events, any(e["type"] == "error" for e in events)),
        extra={"trace": trace, "spans": kept, "agents": _agent_facts(spans)},
        offered=sorted({str(t) for a in _agent_facts(spans) for t in a.get("tools") or []}),
    )
    group = trace.get("group_id")
    return Imported(IMPORTER.name, body, trace_id=trace_id, session_id=group, label=trace_id)


def _node(span: dict[str, Any], spans: list[dict[str, Any]], agents: dict[Any, Any]) -> str | None:
    """The agent a span ran under: its nearest agent-span ancestor."""
    by_id = {s.get("id"): s for s in spans}
    parent, seen = span.get("parent_id"), set()
    while parent is not None and parent not in seen:  # a cycle in a broken export ends it
        if parent in agents:
            return str(agents[parent])
        seen.add(parent)
        parent = (by_id.get(parent) or {}).get("parent_id")
    return None


def _where(span: dict[str, Any], node: str | None) -> dict[str, Any]:
    start, end = parse_time_key(span.get("started_at")), parse_time_key(span.get("ended_at"))
    return {
        "node": node,
        "timestamp": span.get("started_at"),
        "duration_ms": round((end - start) * 1000, 3) if end >= start > 0 else None,
        "parent": span.get("parent_id"),
    }


def _event(span: dict[str, Any], node: str | None) -> dict[str, Any] | None:
    data = span["span_data"]
    kind = data.get("type")
    where = _where(span, node)
    extra = {"span_id": span.get("id")}
    if kind == "generation":
        output = data.get("output") or []
        content, calls = _generation_output(output)
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else None
        config = obj(data.get("model_config"))
        # base_url says where the call went, not what was asked: extra, not a request parameter
        params = {k: v for k, v in config.items() if v is not None and k not in _NOT_PARAMS}
        extra.update({k: config[k] for k in _NOT_PARAMS if config.get(k) and k != "temperature"})
        return model_event(
            data.get("model"), messages(data.get("input") or []), content, calls,
            temperature=config.get("temperature"), params=params or None, usage=usage,
            extra=extra, **where,
        )  # fmt: skip
    if kind == "response":  # only a response id: the request was not exported
        extra["response_id"] = data.get("response_id")
        event = model_event(None, [], None, [], usage=data.get("usage"), extra=extra, **where)
        return {**event, "missing": ["messages"]}
    if kind == "function":
        shown = data.get("output")  # the SDK exports str(output): a dict as its Python repr
        err = _tool_error(span.get("error"), shown)
        extra["mcp_data"] = data.get("mcp_data")
        if err is not None:  # what the model was shown instead of a result
            extra["output"] = shown
        return tool_event(
            str(data.get("name")), None, arguments(data.get("input")), result_value(shown),
            error=err, extra=extra, **where,
        )  # fmt: skip
    if kind == "handoff" and data.get("to_agent"):
        return handoff_event(data.get("from_agent"), str(data["to_agent"]), extra=extra, **where)
    return None


_NOT_PARAMS = ("temperature", "base_url")


def _handoff_answers(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A handoff answers the model's `transfer_to_<agent>` call: record that answer too.

    The SDK exports no function span for it; the result the model was shown is the tool
    message the next generation's input holds for that call id.
    """
    out: list[dict[str, Any]] = []
    for i, event in enumerate(events):
        if event["type"] == "handoff":
            call = _open_call(out)
            if call is not None:
                result = _shown_result(events[i + 1 :], call["id"])
                where = {k: event.get(k) for k in ("node", "timestamp", "parent")}
                out.append(
                    tool_event(
                        call["name"],
                        call["id"],
                        call["arguments"],
                        result,
                        extra={"handoff_to": event["to"]},
                        **where,
                    )
                )
        out.append(event)
    return out


def _responses_calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a Responses-API model call asked for, from the function spans that ran after it.

    Response spans export only a response id. The SDK runs a function tool only when the
    model's response asked for it, with the arguments the model gave, before it asks the
    model again: so the tool calls up to the next model call are that response's calls
    (their call ids are not exported). The event says it was inferred.
    """
    for i, event in enumerate(events):
        if event["type"] != "model_call" or "response_id" not in (event.get("extra") or {}):
            continue
        ran = []
        for later in events[i + 1 :]:
            if later["type"] == "model_call":
                break
            if later["type"] == "tool_call":
                ran.append({"id": None, "name": later["tool"], "arguments": later["arguments"]})
        if ran:
            event["response"]["tool_calls"] = ran
            event["extra"]["tool_calls_from"] = "the function spans that followed"
    return events


def _open_call(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last model call's requested call that no tool call has answered yet."""
    answered = {e.get("call_id") for e in events if e["type"] == "tool_call"}
    model = next((e for e in reversed(events) if e["type"] == "model_call"), None)
    requested = (model or {}).get("response", {}).get("tool_calls") or []
    return next((r for r in requested if r.get("id") and r["id"] not in answered), None)


def _shown_result(later: list[dict[str, Any]], call_id: str) -> Any:
    for event in later:
        if event["type"] != "model_call":
            continue
        for msg in event["request"]["messages"]:
            if msg.get("role") == "tool" and msg.get("tool_call_id") == call_id:
                return result_value(msg.get("content"))
    return ABSENT


def _generation_output(output: Any) -> tuple[str | None, list[dict[str, Any]]]:
    said = messages(output)
    texts = [t for t in (text_of(m.get("content")) for m in said) if t]
    calls = [call for m in said for call in m.get("tool_calls") or []]
    return ("".join(texts) if texts else None), calls


def _tool_error(raw: Any, shown: Any = None) -> dict[str, str] | None:
    """`{message, data}`: the SDK puts the tool's own exception text in `data.error`.

    The exception's type is not in the error data; a `failure_error_function` that writes it
    into the text the model is shown (`Tool failed: TimeoutError: refund_check_timeout`)
    gives it back.
    """
    if not isinstance(raw, dict):
        return None
    data = obj(raw.get("data"))
    detail = data.get("error")
    err = error(detail if detail else raw.get("message") or "", "ToolError")
    named = error_type_in(shown, err["message"]) if err["type"] == "ToolError" else None
    if named is not None and named != "Error":
        err["type"] = named
    return err


def _agent_errors(
    spans: list[dict[str, Any]], events: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    seen = [e["error"] for e in events if e.get("error")]
    out = []
    for span in spans:
        data = span["span_data"]
        if data.get("type") not in ("agent", "guardrail", "custom") or not span.get("error"):
            continue
        err = _tool_error(span["error"])
        if err is not None and err not in seen:
            seen.append(err)
            where = {**_where(span, data.get("name")), "timestamp": span.get("ended_at")}
            out.append(error_event(err, **where, extra={"span_id": span.get("id")}))
    return out


def _agent_facts(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in s["span_data"].items() if k != "type" and v}
        for s in spans
        if s["span_data"].get("type") == "agent"
    ]
