"""The two sides of a comparison, read from files: a trace, a case directory, or a results
document (`corpus replay|check --results`) that carries each case's replayed run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.io import files, schema
from corpus_tool.model.divergence import Divergence
from corpus_tool.model.events import Event, ToolCallEvent
from corpus_tool.model.json import JsonObject
from corpus_tool.model.results import CaseOutcome, Results, Verdict, results_from_doc
from corpus_tool.model.trace import Trace, Trajectory


@dataclass(frozen=True)
class Run:
    """One run: its trajectory, the case it belongs to, and the input it was given."""

    trajectory: Trajectory
    case: str | None = None
    input: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class CaseRun:
    """One case of a results document: its verdict, and its run when it ran."""

    verdict: Verdict
    run: Run | None
    error: str | None = None


@dataclass(frozen=True)
class Suite:
    """A results document: the cases of one run of a corpus, and the document as read (the
    report lays it out as the gate does, without reading the file again)."""

    cases: Mapping[str, CaseRun]
    results: Results


Side = Run | Suite


def load_side(path: Path) -> Side:
    """A trace file, a case directory or a results document; anything else is an InputError."""
    if path.is_dir():
        if not (path / "trace.yaml").is_file():
            raise InputError("is a directory without trace.yaml; give a case directory", path)
        path = path / "trace.yaml"
    raw = files.read_bytes(path)
    doc = files.parse_json(raw, path) if raw.lstrip()[:1] in (b"{", b"[") else None
    plain = doc is not None  # JSON is; YAML is when its fast path built it (spans known)
    if doc is None:
        doc, spans = files.parse_yaml_spans(raw, path)
        plain = spans is not None
    if isinstance(doc, dict) and isinstance(doc.get("cases"), list) and "summary" in doc:
        return _suite(results_from_doc(doc, path, plain))
    if isinstance(doc, dict) and "events" in doc and "recorded" in doc:
        return _trace(doc, path, plain)
    raise InputError(
        "is neither a trace (trace.yaml), a case directory nor a results document "
        "(corpus replay --results FILE); give one of those",
        path,
    )


def _trace(doc: JsonObject, path: Path, plain: bool) -> Run:
    problem = schema.first_problem("trace", doc, plain)
    if problem:
        raise InputError(f"not a valid trace: {problem}", path)
    trace = Trace.from_doc(doc)
    return Run(Trajectory(trace.events, trace.terminal), trace.id, trace.input.to_doc())


def _suite(results: Results) -> Suite:
    """The cases of a results document, each with its replayed run when it ran."""
    cases = {c.case: CaseRun(c.verdict, _replayed(c), c.error) for c in results.cases}
    return Suite(cases, results)


def _replayed(outcome: CaseOutcome) -> Run | None:
    if outcome.trajectory is None:
        return None
    return replayed(outcome.trajectory, outcome.divergence, outcome.case)


def replayed(trajectory: Trajectory, divergence: Divergence | None, case: str) -> Run:
    """A replayed run, ending with the tool call it stopped at, if a divergence stopped it."""
    attempt = attempted(divergence, len(trajectory.events) + 1)
    if attempt is None:
        return Run(trajectory, case)
    return Run(Trajectory((*trajectory.events, attempt), trajectory.terminal), case)


def attempted(divergence: Divergence | None, seq: int) -> Event | None:
    """The tool call a replay stopped at (it is in no trajectory: the recording could not
    answer it), so a diff shows what the agent tried, with which arguments."""
    actual = divergence.actual if divergence is not None else None
    if not isinstance(actual, Mapping) or not isinstance(actual.get("tool"), str):
        return None
    arguments = actual.get("arguments")
    return ToolCallEvent(
        seq=seq,
        tool=actual["tool"],
        arguments=dict(arguments) if isinstance(arguments, Mapping) else {},
        extra={"attempted": True},
    )
