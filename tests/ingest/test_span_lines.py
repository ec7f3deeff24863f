"""Span JSON lines: OpenInference spans and OTLP exports one per line, read as one trace.

The spans come from a real run: the OpenAI client instrumented by openinference's
instrumentor into the OpenTelemetry SDK (`test_sdk_openinference`'s weather loop). Each line
is a span's `ReadableSpan.to_json()` (OpenInference JSON lines), the SDK's own
`ConsoleSpanExporter` output (indented spans one after another), or an OTLP export holding
one span (the Collector file exporter's form, `{"resourceSpans": [...]}` a line). Ground truth
is the script's tool calls (`EXPECTED`) and the trace ids the lines carry, read by this file.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openinference.instrumentation.openai as oi
import pytest
from opentelemetry.sdk.trace.export import ConsoleSpanExporter

from tests.conftest import Cli
from tests.ingest.conftest import calls, load, problems
from tests.ingest.fake_openai import weather_script
from tests.ingest.otel_export import instrumented, otlp_json
from tests.ingest.test_sdk_openinference import EXPECTED, _loop


def _run() -> Any:
    with instrumented(oi.OpenAIInstrumentor(), weather_script()) as (client, tracer, exporter):
        assert _loop(client, tracer) == "It is sunny in Tokyo."
        return exporter


@pytest.fixture
def finished() -> Iterator[Any]:
    yield _run()


def span_lines(exporter: Any) -> list[dict[str, Any]]:
    return [json.loads(s.to_json()) for s in exporter.get_finished_spans()]


def otlp_lines(exporter: Any) -> list[dict[str, Any]]:
    """One OTLP export per span: the resource and scope around each span alone."""
    doc = otlp_json(exporter)
    return [
        {"resourceSpans": [{**rs, "scopeSpans": [{**ss, "spans": [span]}]}]}
        for rs in doc["resourceSpans"]
        for ss in rs["scopeSpans"]
        for span in ss["spans"]
    ]


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_openinference_json_lines_are_one_trace(tmp_path: Path, finished: Any) -> None:
    lines = span_lines(finished)
    assert len({line["context"]["trace_id"] for line in lines}) == 1
    (run,) = load(_write(tmp_path / "spans.jsonl", lines))
    assert run.format == "openinference"
    assert calls(run.body) == EXPECTED
    assert run.body["terminal"] == {"status": "succeeded", "output": "It is sunny in Tokyo."}
    assert problems(run.body) == []


def test_console_exporter_output_reads_as_span_lines(tmp_path: Path, finished: Any) -> None:
    out = io.StringIO()
    ConsoleSpanExporter(out=out).export(finished.get_finished_spans())
    path = tmp_path / "console.log"
    path.write_text(out.getvalue(), encoding="utf-8")
    (run,) = load(path)
    assert run.format == "openinference"
    assert calls(run.body) == EXPECTED


def test_otlp_json_lines_merge_into_one_export(tmp_path: Path, finished: Any) -> None:
    lines = otlp_lines(finished)
    assert len(lines) == len(finished.get_finished_spans()) > 1
    (run,) = load(_write(tmp_path / "otlp.jsonl", lines))
    assert run.format == "otel-genai"
    assert calls(run.body) == EXPECTED
    resource = lines[0]["resourceSpans"][0]["resource"]["attributes"]
    service = next(a["value"]["stringValue"] for a in resource if a["key"] == "service.name")
    assert run.body["extra"]["resource"]["service.name"] == service
    assert problems(run.body) == []


@pytest.mark.parametrize("form", ["openinference", "otlp"])
def test_span_lines_of_two_traces_need_select(
    tmp_path: Path, corpus_dir: Path, cli: Cli, form: str
) -> None:
    first, second = _run(), _run()
    make = span_lines if form == "openinference" else otlp_lines
    path = _write(tmp_path / "two.jsonl", make(first) + make(second))
    ids = sorted(
        {s.context.trace_id for s in first.get_finished_spans() + second.get_finished_spans()}
    )
    assert len(ids) == 2
    refused = cli("-C", corpus_dir, "add", path)
    assert refused.code == 2 and "--select" in refused.err
    chosen = format(ids[0], "032x")
    added = cli("-C", corpus_dir, "add", path, "--select", chosen, "--id", "one")
    assert added.code == 0, added.err
    assert (corpus_dir / "cases/one/trace.yaml").is_file()


def test_broken_line_names_its_line(
    tmp_path: Path, corpus_dir: Path, cli: Cli, finished: Any
) -> None:
    path = _write(tmp_path / "spans.jsonl", span_lines(finished))
    with path.open("a", encoding="utf-8") as out:
        out.write('{"name": "cut off", "context": {"span_id": "0x1"\n')
    result = cli("-C", corpus_dir, "add", path, "--format", "openinference")
    assert result.code == 2
    assert f"line {len(span_lines(finished)) + 1}" in result.err and str(path) in result.err


def test_span_lines_of_one_span_are_read(tmp_path: Path, finished: Any) -> None:
    """A span-lines file of one line is one JSON document: still read as span lines."""
    lines = span_lines(finished)
    llm = [s for s in lines if s["attributes"].get("openinference.span.kind") == "LLM"]
    (run,) = load(_write(tmp_path / "one.jsonl", llm[:1]))
    assert run.format == "openinference"
    assert [e["type"] for e in run.body["events"]] == ["model_call"]
