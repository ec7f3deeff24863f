"""The results document of a run (`corpus replay|check --results FILE`) as frozen, typed values,
and the one place such a document is read.

`Results` is the whole document, `CaseOutcome` one case's entry; `Verdict` and `Mode` (which
lives in `model.config`, beside the setting) are the closed vocabularies of a case (divergence
kinds are `model.divergence.DivergenceKind`); a live run (`--model live`) adds `LiveTotals`
to the document and `LiveUsage`, the unmatched tool calls, the provider errors and passes out
of attempts to each case it ran. The writer is `corpus_tool.replay.results` (it turns the
replay's `CaseResult`s into the document the schema describes, schemas/results.schema.json);
every reader (`corpus gate`, `status`,
`waivers unused`, `diff`, the gate's sides) comes here, so a document is parsed into these
values at the door and no reader holds its dict. Reading lives in the model, not beside the
writer in `replay/`, so that the commands that only read a document (`status`, `waivers`)
never load the replay engine or the graders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from corpus_tool.errors import InputError
from corpus_tool.io import files, schema
from corpus_tool.model.checks import NOT_REACHED, CheckResult
from corpus_tool.model.config import Mode
from corpus_tool.model.divergence import Divergence
from corpus_tool.model.events import event_from_doc
from corpus_tool.model.findings import Finding
from corpus_tool.model.trace import Terminal, Trajectory
from corpus_tool.model.vocabulary import StrEnum
from corpus_tool.model.waiver import INVALID, Broken, Waiver


class Verdict(StrEnum):
    """What a run made of a case; the order is the summary's (and the document's)."""

    PASSED = "passed"
    FAILED = "failed"  # counted as a failure
    ERROR = "error"  # could not run; counted as a failure, never waived
    KNOWN_UNKNOWN = "known_unknown"  # kept for the record, never counted
    SKIPPED = "skipped"  # retired or tier archive: kept, not run
    WAIVED = "waived"  # failed, every failing check excused by an active waiver
    FLAKY = "flaky"  # live --repeat: some attempts passed, not all; counted as a failure
    STALE = "stale"  # regrade: the trace changed since the run; not graded, counted as a failure


FAILING: frozenset[Verdict] = frozenset(
    {Verdict.FAILED, Verdict.ERROR, Verdict.FLAKY, Verdict.STALE}
)
"""The verdicts that fail a run (and a case's exit status)."""


@dataclass(frozen=True)
class FieldNote:
    """A model request field only one side carried (not compared), as the document notes it."""

    path: str
    carried_by: Literal["recording", "agent"]
    steps: tuple[int, ...]
    message: str


@dataclass(frozen=True)
class ProviderFailure:
    """One failed attempt at a live model call: the provider's status and what it said."""

    status: int | str | None  # the HTTP status, `timeout`, or None when it gave none
    message: str


@dataclass(frozen=True)
class LiveModelCall:
    """One live model call of a case, as the document records it."""

    attempt: int  # which --repeat run of the case made it (0 first)
    step: int
    model: str | None
    input_tokens: int
    output_tokens: int
    duration_ms: float
    provider_errors: tuple[ProviderFailure, ...] = ()
    failed: bool = False


@dataclass(frozen=True)
class UnmatchedCall:
    """A tool call of a live run no recorded call answered (the placeholder answered it)."""

    seq: int
    tool: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class LiveUsage:
    """What a case's live model calls cost (`--model live`)."""

    live_from: int | None
    input_tokens: int
    output_tokens: int
    model_ms: float
    calls: tuple[LiveModelCall, ...] = ()


@dataclass(frozen=True)
class LiveTotals:
    """What the live model cost the whole run: the document's top-level `live`."""

    model_calls: int
    input_tokens: int
    output_tokens: int
    model_ms: float
    skipped_budget: int


@dataclass(frozen=True)
class AttemptRun:
    """One --repeat attempt of a live case, as the document keeps it."""

    attempt: int
    verdict: Verdict
    failed_checks: tuple[str, ...] = ()
    error: str | None = None
    trajectory: Trajectory | None = None


@dataclass(frozen=True)
class CaseOutcome:
    """One case of a results document: its verdict and everything recorded about why."""

    case: str
    verdict: Verdict
    duration_ms: float = 0.0
    failed_checks: tuple[str, ...] = ()
    divergence: Divergence | None = None
    status: str = "active"
    tier: str = "fast"
    tags: tuple[str, ...] = ()
    mode: Mode | None = None
    not_reached: tuple[str, ...] = ()
    checks: tuple[CheckResult, ...] = ()
    sequence_diff: tuple[str, ...] = ()
    unused: tuple[int, ...] = ()
    notes: tuple[FieldNote, ...] = ()
    error: str | None = None
    reason: str | None = None
    output: str = ""
    waived_by: tuple[str, ...] = ()
    stack: tuple[str, ...] = ()
    trajectory: Trajectory | None = None
    """The replayed run (the first of --repeat); None when the case did not run."""
    live: LiveUsage | None = None
    """A live run's usage (`mode: live`); None for a recorded one."""
    provider_errors: tuple[ProviderFailure, ...] = ()
    unmatched: tuple[UnmatchedCall, ...] = ()
    attempts: int | None = None
    """Live runs of the case (--repeat N); None when it did not run live."""
    passes: int | None = None
    k: int | None = None
    trace_key: str | None = None
    """The sha256 of the trace.yaml the case ran against (`corpus regrade` compares it); None
    in a document written before it was recorded."""
    replay_key: str | None = None
    """The key of the stubs, continuation and request-field settings the case ran with."""
    recorded_end: Terminal | None = None
    """The recording's terminal, as the run read it from the trace (`trace_key`)."""
    runs: tuple[AttemptRun, ...] = ()
    """Every attempt of a live --repeat N (N > 1), in order; empty otherwise."""

    @property
    def raw_verdict(self) -> Verdict:
        """The verdict before any waiver: a waived case failed."""
        return Verdict.FAILED if self.verdict is Verdict.WAIVED else self.verdict


@dataclass(frozen=True)
class Results:
    """A whole results document: cases sorted by id, and the waivers as they stood."""

    command: Literal["replay", "check", "regrade"]
    corpus: str
    tool_version: str
    summary: Mapping[str, int]  # total, then a count per `Verdict`
    cases: tuple[CaseOutcome, ...]
    waivers: tuple[Waiver | Broken, ...] = ()
    findings: tuple[Finding, ...] = ()  # `check` only
    waiver_states: Mapping[str, str] = field(default_factory=dict)
    """Each waiver's state when the run was made, by id: `active`, `expired` or `invalid`
    (the gate judges expiry again for its own day; the HTML report shows the run's)."""
    live: LiveTotals | None = None
    """What the live model cost (present when a case ran live)."""

    def by_case(self) -> dict[str, CaseOutcome]:
        """The cases by id (each is listed once in a document `read_results` accepted)."""
        return {c.case: c for c in self.cases}


REPLAY_HINT = "write one with `corpus replay --results FILE`"


def read_results(path: Path, checks: bool = True) -> Results:
    """A results document file, schema-checked, each case listed once (`corpus gate`, `status`,
    `waivers unused`); anything else is a one-line InputError naming the file. `checks`
    False leaves each case's check results unread (`regrade` grades the runs again: an
    eighth of the document's cost it would not use)."""
    doc = files.parse_json(files.read_bytes(path), path)
    problem = schema.first_problem("results", doc, plain=True)  # JSON: the compiled check
    if problem:
        raise InputError(f"not a results document ({problem}); {REPLAY_HINT}", path)
    if not isinstance(doc, dict):  # the schema says object; this tells mypy
        raise InputError("not a results document", path)
    with files.collector_paused():  # frozen values of the document: no cycles
        results = _results(doc, path, checks)
    _once_each(results, path)
    return results


def results_from_doc(doc: dict[str, Any], path: Path, plain: bool) -> Results:
    """A document parsed already (`corpus diff` reads JSON or YAML), schema-checked; a case
    listed twice is read as its last entry."""
    problem = schema.first_problem("results", doc, plain)
    if problem:
        raise InputError(f"not a valid results document: {problem}", path)
    return _results(doc, path)


def results_of(doc: Mapping[str, Any]) -> Results:
    """A document this process has just built (`corpus gate --base`'s sides replay each
    side into one): no file, and nothing to check that the writer did not make."""
    return _results(doc, Path("<results>"))


def _results(doc: Mapping[str, Any], path: Path, checks: bool = True) -> Results:
    return Results(
        command=doc["command"],
        corpus=str(doc["corpus"]),
        tool_version=str(doc["tool"]["version"]),
        summary={str(k): int(v) for k, v in doc["summary"].items()},
        cases=tuple(_case(entry, path, checks) for entry in doc["cases"]),
        waivers=tuple(_waiver(entry, path) for entry in doc.get("waivers") or ()),
        findings=tuple(Finding(**f) for f in doc.get("findings") or ()),
        waiver_states={str(w["id"]): str(w["state"]) for w in doc.get("waivers") or ()},
        live=_totals(doc.get("live")),
    )


def _totals(doc: Mapping[str, Any] | None) -> LiveTotals | None:
    if doc is None:
        return None
    return LiveTotals(
        model_calls=int(doc["model_calls"]),
        input_tokens=int(doc["input_tokens"]),
        output_tokens=int(doc["output_tokens"]),
        model_ms=float(doc["model_ms"]),
        skipped_budget=int(doc["skipped_budget"]),
    )


def _case(entry: Mapping[str, Any], path: Path, checks: bool = True) -> CaseOutcome:
    divergence = entry.get("divergence")
    mode = entry.get("mode")
    return CaseOutcome(
        case=str(entry["case"]),
        verdict=Verdict(entry["verdict"]),
        duration_ms=float(entry["duration_ms"]),
        failed_checks=_strings(entry.get("failed_checks")),
        divergence=Divergence.from_doc(divergence) if divergence else None,
        status=str(entry.get("status") or "active"),
        tier=str(entry.get("tier") or "fast"),
        tags=_strings(entry.get("tags")),
        mode=Mode(mode) if mode else None,
        not_reached=_strings(entry.get("not_reached")),
        checks=tuple(_check(c) for c in entry.get("checks") or ()) if checks else (),
        sequence_diff=_strings(entry.get("sequence_diff")),
        unused=tuple(int(seq) for seq in entry.get("unused") or ()),
        notes=tuple(_note(n) for n in entry.get("notes") or ()),
        error=entry.get("error"),
        reason=entry.get("reason"),
        output=str(entry.get("output") or ""),
        waived_by=_strings(entry.get("waived_by")),
        stack=_strings(entry.get("stack")),
        trajectory=_trajectory(entry, path),
        live=_usage(entry.get("live")),
        provider_errors=tuple(_failure(e) for e in entry.get("provider_errors") or ()),
        unmatched=tuple(_unmatched(u) for u in entry.get("unmatched") or ()),
        attempts=_count(entry.get("attempts")),
        passes=_count(entry.get("passes")),
        k=_count(entry.get("k")),
        trace_key=entry.get("trace_key"),
        replay_key=entry.get("replay_key"),
        recorded_end=_end(entry.get("recorded_end")),
        runs=tuple(_attempt_run(entry, r, path) for r in entry.get("runs") or ()),
    )


def _attempt_run(entry: Mapping[str, Any], run: Mapping[str, Any], path: Path) -> AttemptRun:
    return AttemptRun(
        attempt=int(run["attempt"]),
        verdict=Verdict(run["verdict"]),
        failed_checks=_strings(run.get("failed_checks")),
        error=run.get("error"),
        trajectory=_trajectory({"case": entry["case"], **run}, path),
    )


def _end(doc: Mapping[str, Any] | None) -> Terminal | None:
    return None if doc is None else Terminal.from_doc(doc)


def _count(value: Any) -> int | None:
    return None if value is None else int(value)


def _usage(doc: Mapping[str, Any] | None) -> LiveUsage | None:
    if doc is None:
        return None
    live_from = doc.get("live_from")
    return LiveUsage(
        live_from=None if live_from is None else int(live_from),
        input_tokens=int(doc["input_tokens"]),
        output_tokens=int(doc["output_tokens"]),
        model_ms=float(doc["model_ms"]),
        calls=tuple(_call(c) for c in doc.get("calls") or ()),
    )


def _call(doc: Mapping[str, Any]) -> LiveModelCall:
    model = doc.get("model")
    return LiveModelCall(
        attempt=int(doc["attempt"]),
        step=int(doc["step"]),
        model=None if model is None else str(model),
        input_tokens=int(doc["input_tokens"]),
        output_tokens=int(doc["output_tokens"]),
        duration_ms=float(doc["duration_ms"]),
        provider_errors=tuple(_failure(e) for e in doc.get("provider_errors") or ()),
        failed=bool(doc.get("failed")),
    )


def _failure(doc: Mapping[str, Any]) -> ProviderFailure:
    return ProviderFailure(status=doc.get("status"), message=str(doc["message"]))


def _unmatched(doc: Mapping[str, Any]) -> UnmatchedCall:
    return UnmatchedCall(int(doc["seq"]), str(doc["tool"]), dict(doc["arguments"]))


def _strings(items: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in items or ())


def _check(doc: Mapping[str, Any]) -> CheckResult:
    outcome = doc.get("outcome")
    return CheckResult(
        name=str(doc["name"]),
        passed=bool(doc["passed"]),
        message=str(doc["message"]),
        details=dict(doc.get("details") or {}),
        reached=outcome != NOT_REACHED,
    )


def _note(doc: Mapping[str, Any]) -> FieldNote:
    steps = tuple(int(s) for s in doc["steps"])
    return FieldNote(str(doc["path"]), doc["carried_by"], steps, str(doc["message"]))


def _trajectory(entry: Mapping[str, Any], path: Path) -> Trajectory | None:
    """The replayed run; an event the trace model cannot read is refused, naming the case."""
    stored = entry.get("trajectory")
    if stored is None:
        return None
    try:
        events = tuple(event_from_doc(e) for e in stored["events"])
        return Trajectory(events, Terminal.from_doc(stored["terminal"]))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise InputError(
            f"case {entry['case']}: a replayed event cannot be read ({type(err).__name__}: {err})",
            path,
        ) from None


def _waiver(entry: Mapping[str, Any], path: Path) -> Waiver | Broken:
    """A waiver as the run recorded it; its state then is judged again by whoever reads it."""
    if entry.get("state") == INVALID:
        return Broken(str(entry["id"]), str(entry.get("problem") or "invalid"))
    try:
        return Waiver.from_doc(entry)
    except ValueError as err:  # expires 2026-02-30: the pattern holds, the day does not exist
        said = f"waiver {entry['id']}: {err}"
        raise InputError(f"not a results document ({said}); {REPLAY_HINT}", path) from None


def _once_each(results: Results, path: Path) -> None:
    """Every case listed once: a second entry (failed, then passed) would let the later one
    decide, so a document that lists a case twice is refused rather than read either way."""
    seen: set[str] = set()
    for outcome in results.cases:
        if outcome.case in seen:
            raise InputError(
                f"lists case {outcome.case!r} more than once; write the document again with "
                "`corpus replay --results FILE`",
                path,
            )
        seen.add(outcome.case)
