"""OTel GenAI shapes the samples do not show: deprecated message events, missing tool
results, Jaeger error tags and exception logs; and redaction of imported values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.cli import main
from tests.ingest.conftest import calls, load

NS = 1_767_225_600_000_000_000


def _attr(key: str, value: Any) -> dict[str, Any]:
    kind = "intValue" if isinstance(value, int) else "stringValue"
    return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}


def _span(
    span_id: str, name: str, start: int, attrs: dict[str, Any], **more: Any
) -> dict[str, Any]:
    return {
        "traceId": "ab" * 16,
        "spanId": span_id,
        "parentSpanId": more.pop("parent", "00" * 8 if span_id != "01" * 8 else ""),
        "name": name,
        "startTimeUnixNano": str(NS + start * 1_000_000),
        "endTimeUnixNano": str(NS + (start + 5) * 1_000_000),
        "attributes": [_attr(k, v) for k, v in attrs.items()],
        **more,
    }


def _otlp(*spans: dict[str, Any]) -> dict[str, Any]:
    resource = {
        "attributes": [_attr("service.name", "desk-agent"), _attr("service.version", "3.1")]
    }
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": list(spans)}]}]}


def _event(name: str, start: int, **attrs: Any) -> dict[str, Any]:
    return {
        "name": name,
        "timeUnixNano": str(NS + start * 1_000_000),
        "attributes": [_attr(k, v) for k, v in attrs.items()],
    }


def _chat_with_events(
    span_id: str, start: int, choice: dict[str, Any], *events: dict[str, Any]
) -> dict[str, Any]:
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}
    choice_event = _event(
        "gen_ai.choice", start + 4, index=0, finish_reason="stop", message=json.dumps(choice)
    )
    return _span(span_id, "chat gpt-4o", start, attrs, events=[*events, choice_event])


def _tool(span_id: str, start: int, result: str | None) -> dict[str, Any]:
    attrs = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.call.arguments": '{"sku": "A100"}',
    }
    if result is not None:
        attrs["gen_ai.tool.call.result"] = result
    return _span(span_id, "execute_tool lookup", start, attrs)


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "otlp.json"
    path.write_text(json.dumps(doc))
    return path


def _run(result: str | None) -> dict[str, Any]:
    function = {"name": "lookup", "arguments": '{"sku": "A100"}'}
    ask = {
        "role": "assistant",
        "tool_calls": [{"id": "c1", "type": "function", "function": function}],
    }
    first = _chat_with_events(
        "02" * 8, 1, ask,
        _event("gen_ai.system.message", 1, content="You are a stock desk."),
        _event("gen_ai.user.message", 1, content="Stock of A100? Mail me at ann@example.com"),
    )  # fmt: skip
    final = _chat_with_events("04" * 8, 20, {"role": "assistant", "content": "A100: 3 left."})
    agent = _span(
        "01" * 8,
        "invoke_agent desk",
        0,
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"},
    )
    for span in (first, final):
        span["parentSpanId"] = "01" * 8
    tool = _tool("03" * 8, 10, result)
    tool["parentSpanId"] = "01" * 8
    return _otlp(agent, first, tool, final)


def test_otel_deprecated_message_and_choice_events(tmp_path: Path) -> None:
    (run,) = load(_write(tmp_path, _run('{"stock": 3}')))
    model = run.body["events"][0]
    assert model["request"]["messages"][1] == {
        "role": "user",
        "content": "Stock of A100? Mail me at ann@example.com",
    }
    assert model["response"]["tool_calls"] == [
        {"id": "c1", "name": "lookup", "arguments": {"sku": "A100"}}
    ]
    assert calls(run.body) == [("lookup", {"sku": "A100"}, {"stock": 3})]
    assert run.body["terminal"] == {"status": "succeeded", "output": "A100: 3 left."}
    assert run.body["recorded"]["agent"] == {"name": "desk", "version": "3.1"}


def test_otel_tool_span_without_result_is_refused(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(corpus), "add", str(_write(tmp_path, _run(None)))]) == 2
    err = capsys.readouterr().err
    assert (
        "incomplete incident" in err
        and "tool_call lookup (seq 2) has neither result nor error" in err
    )
    assert not [p for p in (corpus / "cases").iterdir() if p.is_dir()]


def test_imported_values_are_redacted(tmp_path: Path, corpus: Path) -> None:
    assert (
        main(
            ["-C", str(corpus), "add", str(_write(tmp_path, _run('{"stock": 3}'))), "--id", "desk"]
        )
        == 0
    )
    text = (corpus / "cases/desk/trace.yaml").read_text()
    assert "ann@example.com" not in text
    assert "redaction:" in text


def test_jaeger_error_tag_and_exception_log(tmp_path: Path) -> None:
    tags = [
        {"key": "gen_ai.operation.name", "type": "string", "value": "execute_tool"},
        {"key": "gen_ai.tool.name", "type": "string", "value": "refund"},
        {"key": "gen_ai.tool.call.arguments", "type": "string", "value": '{"amount": 5}'},
        {"key": "error", "type": "bool", "value": True},
        {"key": "otel.status_description", "type": "string", "value": "gateway down"},
    ]
    logs = [{"timestamp": 1767225600000100, "fields": [
        {"key": "event", "type": "string", "value": "exception"},
        {"key": "exception.type", "type": "string", "value": "requests.ConnectionError"},
        {"key": "exception.message", "type": "string", "value": "gateway down"},
    ]}]  # fmt: skip
    span = {
        "traceID": "t1", "spanID": "s1", "operationName": "execute_tool refund", "references": [],
        "startTime": 1767225600000000, "duration": 2000, "tags": tags, "logs": logs,
        "processID": "p1",
    }  # fmt: skip
    doc = {
        "data": [{"traceID": "t1", "spans": [span], "processes": {"p1": {"serviceName": "pay"}}}]
    }
    (run,) = load(_write(tmp_path, doc))
    assert calls(run.body) == [
        ("refund", {"amount": 5}, {"type": "ConnectionError", "message": "gateway down"})
    ]
    assert run.body["events"][0]["duration_ms"] == 2.0
