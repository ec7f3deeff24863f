"""Recording incidents for tests: an agent run in record mode against a scripted model.

The script is the ground truth: each model answer is planted, so a test knows which events
(seq numbers) each planted turn produced without asking the code under test.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

from corpus_tool import ModelResponse
from corpus_tool.replay.record import RecordMeta, record

Agent = Callable[[dict[str, Any], Any], Any]


def scripted(turns: Sequence[ModelResponse]) -> Callable[..., ModelResponse]:
    """A model that gives the planted answers in order (and fails loudly past them)."""
    answers = iter(turns)

    def model(messages: list[Any], **request: Any) -> ModelResponse:
        return next(answers)

    return model


def record_incident(
    agent: Agent,
    turns: Sequence[ModelResponse],
    tools: Mapping[str, Callable[[dict[str, Any]], Any]],
    out: Path,
    *,
    trace_id: str,
    message: str,
    context: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run `agent` in record mode and write the native incident to `out`."""
    meta = RecordMeta(
        trace_id=trace_id,
        agent={"name": "test-agent", "version": "1.0.0"},
        started_at=datetime(2025, 6, 4, 11, 0, tzinfo=timezone.utc),
        timezone="UTC",
        seed=7,
    )
    case_input = {"user_message": message, "context": dict(context or {}), "conversation": []}
    return record(
        agent,
        case_input,
        model=scripted(turns),
        tools=tools,
        meta=meta,
        timer=lambda name: 100.0,
        out=out,
    )


def load_module(path: Path, name: str) -> ModuleType:
    """Import a module the test wrote (an agent or a judge) from its file."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def seqs_of(incident: Mapping[str, Any], **match: Any) -> list[int]:
    """seq of the incident's events whose fields equal `match` (e.g. tool="get_order")."""
    return [e["seq"] for e in incident["events"] if all(e.get(k) == v for k, v in match.items())]
