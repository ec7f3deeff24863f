"""Spans from the OpenTelemetry SDK, encoded as OTLP/JSON by the exporter's own protobuf encoder.

`google.protobuf.json_format` writes bytes fields as base64; OTLP/JSON wants trace and span
ids as hex, so the ids are re-encoded (as the Collector's file exporter writes them).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_IDS = ("traceId", "spanId", "parentSpanId")


@contextmanager
def recording(service: str) -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    resource = Resource.create({"service.name": service, "service.version": "1.4.2"})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def otlp_json(exporter: InMemorySpanExporter) -> dict[str, Any]:
    doc = MessageToDict(encode_spans(exporter.get_finished_spans()))
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in _IDS:
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return doc


def legacy_batches(doc: dict[str, Any]) -> dict[str, Any]:
    """The same spans in the pre-1.0 field names (Tempo's `batches` export)."""
    return {
        "batches": [
            {
                "resource": rs.get("resource", {}),
                "instrumentationLibrarySpans": [
                    {"instrumentationLibrary": ss.get("scope", {}), "spans": ss.get("spans", [])}
                    for ss in rs.get("scopeSpans", [])
                ],
            }
            for rs in doc["resourceSpans"]
        ]
    }


@contextmanager
def instrumented(instrumentor: Any, script: Any) -> Iterator[tuple[Any, Any, InMemorySpanExporter]]:
    """An OpenAI client instrumented by `instrumentor` into an in-memory exporter.

    Yields (client, tracer for the agent's own spans, exporter); uninstruments on the way out.
    """
    import openai

    with recording("weather-service") as (provider, exporter):
        instrumentor.instrument(tracer_provider=provider)
        try:
            client = openai.OpenAI(api_key="test", http_client=script.sync_client())
            yield client, provider.get_tracer("weather-bot"), exporter
        finally:
            instrumentor.uninstrument()
