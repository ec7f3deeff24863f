"""One case from files to verdict: load, pick the mode, replay, grade, decide."""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.io import files, schema
from corpus_tool.model.checks import DETERMINISM_CHECK, DIVERGENCE_CHECK, NOT_REACHED, CheckResult
from corpus_tool.model.config import Config
from corpus_tool.model.cut import CutShort
from corpus_tool.model.events import ToolCallEvent
from corpus_tool.model.expected import Expect, Expected
from corpus_tool.model.results import FAILING, Verdict
from corpus_tool.model.trace import Trace, Trajectory
from corpus_tool.model.waiver import Waiver
from corpus_tool.replay.divergence import Divergence
from corpus_tool.replay.engine import CaseSpec, Replayed, cut_short
from corpus_tool.replay.faults import FAULT
from corpus_tool.replay.live import LiveRecord
from corpus_tool.replay.matching import ignored_fields
from corpus_tool.replay.requests import RequestNote
from corpus_tool.replay.workers.wire import CaseRequest
from corpus_tool.store.corpus import Corpus

GradeRun = Callable[[Expect, Trajectory, Config], Sequence[CheckResult]]
"""Grades a replayed run: (expect, trajectory, corpus config: where its scorers are registered)
-> check results (`corpus_tool.grade.grade_checks`); replay itself knows nothing of graders."""


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The verdict on one case, with everything a reader needs to see why (slotted: a run
    keeps one per case to its end)."""

    case: str
    verdict: Verdict
    status: str = "active"
    tier: str = "fast"
    tags: tuple[str, ...] = ()
    mode: str | None = None
    duration_ms: float = 0.0
    checks: tuple[CheckResult, ...] = ()
    divergence: Divergence | None = None
    sequence_diff: tuple[str, ...] = ()
    unused: tuple[int, ...] = ()
    error: str | None = None
    reason: str | None = None
    extra_failures: tuple[str, ...] = field(default_factory=tuple)
    notes: tuple[RequestNote, ...] = ()
    output: str = ""  # what the agent printed while the case ran (its worker's fds 1 and 2)
    stack: tuple[str, ...] = ()  # where the worker was stuck, when it ran past its time limit
    trajectory: Trajectory | None = None
    """The replayed run (the first of --repeat), for `corpus diff` and `check --diff`."""
    waivers: tuple[Waiver, ...] = ()
    """Active waivers naming a failing check: they waive the case (verdict `waived`) when
    together they name every failing check, else they are shown beside the failure."""
    live: LiveRecord | None = None
    """Set when the live model answered: its calls, usage, provider errors, unmatched calls."""
    ended_at: int | None = None
    """A fault variant replayed against the recording: the step where the recording could not
    answer the agent's reaction (the rest needs `--model live`); not a failure."""
    trace_key: str | None = None
    """The sha256 of the trace.yaml bytes the case ran against (`corpus regrade` compares it
    with the file's now, so a stored run is never graded against a trace that changed)."""
    replay_key: str | None = None
    """The key of what else replay answered with (`replay_key_of`), compared the same way."""
    recorded_end: Mapping[str, Any] | None = None
    """The recording's terminal (trace.yaml form): regrade decides the strict ending from it
    without parsing the trace again."""

    @property
    def failed_checks(self) -> list[str]:
        """Names of failing checks; replay.divergence / replay.determinism included.

        A check the run never reached (it stopped at a divergence first) is not among them.
        """
        names = [c.name for c in self.checks if c.failed]
        return [*self.extra_failures, *names]

    @property
    def not_reached(self) -> list[str]:
        """Names of checks left undecided because a divergence stopped the run."""
        return [c.name for c in self.checks if c.outcome == NOT_REACHED]

    @property
    def counts_as_failure(self) -> bool:
        return self.verdict in FAILING


@dataclass(frozen=True)
class LoadedCase:
    """A case read for replay: expected.yaml as the model, trace.yaml as the parsed document.

    The worker builds its Trace from the document (a pickle of plain data is cheap to send);
    `trace` builds one here for whoever needs it in this process (`corpus minimize`, a stopped
    run's cut, `check --diff`).
    """

    case_id: str
    expected: Expected
    trace_doc: Any
    trace_key: str | None = None
    """The sha256 of trace.yaml's bytes as read (`trace_key_of`)."""

    @functools.cached_property
    def trace(self) -> Trace:
        """The trace, as the model."""
        return Trace.from_doc(self.trace_doc)


def load_case(
    corpus: Corpus,
    case_id: str,
    valid: Mapping[str, bytes] | None = None,
    parsed: Mapping[str, Any] | None = None,
    trace_key: str | None = None,
) -> LoadedCase:
    """Read trace.yaml and expected.yaml; a bad file is an InputError naming it.

    `valid` holds the bytes of files (by kind: `trace`, `expected`) validation found
    schema-valid in this run, `parsed` those it parsed: neither is read or checked again, and
    each file is parsed once; `trace_key`: the SHA-256 of trace.yaml's bytes, where validation
    knows it (a trace parsed or kept need not be read for it then).
    """
    known = dict(valid or {})
    docs: dict[str, Any] = dict(parsed or {})
    if "trace" not in known and (trace_key is None or "trace" not in docs):
        trace_key = None  # read now: its key is these bytes'
        known["trace"] = files.read_bytes(
            corpus.case_dir(case_id) / "trace.yaml", within=corpus.root
        )
    for kind in ("trace", "expected"):
        path = corpus.case_dir(case_id) / f"{kind}.yaml"
        if kind in docs:
            continue
        if kind in known and kind in (valid or {}):
            docs[kind] = files.parse_yaml(known[kind], path)
            continue
        docs[kind] = read_checked(corpus, case_id, kind, known.get(kind))
    expected = Expected.from_doc(docs["expected"])
    key = trace_key if trace_key is not None else trace_key_of(known["trace"])
    return LoadedCase(case_id, expected, docs["trace"], key)


def read_checked(corpus: Corpus, case_id: str, kind: str, raw: bytes | None = None) -> Any:
    """A case's `kind`.yaml (its bytes when read already) parsed and schema-checked; anything
    else is an InputError naming the file."""
    path = corpus.case_dir(case_id) / f"{kind}.yaml"
    raw = files.read_bytes(path, within=corpus.root) if raw is None else raw
    data, spans = files.parse_yaml_spans(raw, path)
    if not isinstance(data, dict) or schema.errors(kind, data, plain=spans is not None):
        raise InputError(f"not a valid {kind}.yaml; run `corpus validate`", path)
    return data


def replay_key_of(request: CaseRequest) -> str:
    """The key of what replay answers a case with besides its trace: expected.yaml's stubs and
    continuation, the ignored request fields and which fields compare (a change of any makes
    a stored run of the case stale for `corpus regrade`)."""
    settings = (
        tuple(request.ignored),
        request.request_fields,
        request.expected.stubs,
        request.expected.continuation,
    )
    return hashlib.sha256(repr(settings).encode("utf-8")).hexdigest()


def _recorded_end(trace_doc: Any) -> dict[str, Any] | None:
    terminal = trace_doc.get("terminal") if isinstance(trace_doc, Mapping) else None
    return dict(terminal) if isinstance(terminal, Mapping) else None


def trace_key_of(raw: bytes) -> str:
    """The key of a trace.yaml: the sha256 of its bytes (a results document records it)."""
    return hashlib.sha256(raw).hexdigest()


def mode_of(corpus: Corpus, expected: Expected, override: str | None) -> str:
    """--mode, else the case's replay.mode, else the corpus default, else strict."""
    return str(override or expected.mode or corpus.config.replay.mode)


def skip_reason(expected: Expected) -> str | None:
    """Why a case is kept but not run: retired, or tier archive."""
    if expected.status == "retired":
        return "retired"
    if expected.tier == "archive":
        return "tier archive"
    return None


def case_request(corpus: Corpus, loaded: LoadedCase, mode: str | None) -> CaseRequest:
    """What a worker needs to replay the case: its files, the mode, the ignored fields."""
    return trace_request(corpus, loaded.trace_doc, loaded.expected, mode)


def trace_request(
    corpus: Corpus, trace_doc: Any, expected: Expected, mode: str | None
) -> CaseRequest:
    """What a worker needs to replay a trace document under a case's expectations: the mode
    (--mode, else the case's, else the corpus's), the ignored fields, which request fields
    compare (the case's `request_fields`, else the corpus's). `corpus minimize` sends each
    candidate trace this way, so a candidate is replayed exactly as `check` replays a case."""
    chosen = mode_of(corpus, expected, mode)
    ignored = ignored_fields(corpus.config.replay.ignore_request_fields)
    fields = expected.request_fields or corpus.config.replay.request_fields
    return CaseRequest(trace_doc, expected, chosen, ignored, str(fields))


@dataclass(frozen=True)
class Ran:
    """What came back from replaying a case: its runs, or why there is no usable run."""

    runs: Sequence[Replayed] = ()
    error: str | None = None
    output: str = ""
    stack: tuple[str, ...] = ()
    duration_ms: float = 0.0


def judge_case(
    corpus: Corpus, loaded: LoadedCase, request: CaseRequest, ran: Ran, *, grader: GradeRun
) -> CaseResult:
    """The verdict on a replayed case, graded here from the parent's own expected.yaml."""
    base = {
        **base_of(loaded, request.mode),
        "replay_key": replay_key_of(request),
        "recorded_end": _recorded_end(loaded.trace_doc),
    }
    if ran.error is not None or not ran.runs:
        return CaseResult(
            **base,
            verdict=Verdict.ERROR,
            error=ran.error or "the case was not replayed",
            duration_ms=ran.duration_ms,
            output=ran.output,
            stack=ran.stack,
        )
    exp = loaded.expected
    started = time.perf_counter()
    first = replace(ran.runs[0], cut=_cut(loaded, request, ran.runs[0]))
    checks = tuple(grader(exp.expect, first.trajectory, corpus.config))
    result = _judge(base, exp, [first, *ran.runs[1:]], checks, ran.duration_ms + _since(started))
    return replace(result, output=ran.output, stack=ran.stack)


def _cut(loaded: LoadedCase, request: CaseRequest, run: Replayed) -> CutShort | None:
    """Where a divergence stopped the run, worked out here from this process's own files (the
    trace is parsed only then: a run that was not stopped needs nothing of it)."""
    if run.divergence is None or not run.divergence.stopped:
        return None
    spec = CaseSpec(
        loaded.trace, loaded.expected, request.mode, request.ignored, request.request_fields
    )
    return cut_short(spec, run.events, run.divergence)


def _judge(
    base: dict[str, Any],
    expected: Expected,
    runs: Sequence[Replayed],
    checks: tuple[CheckResult, ...],
    duration_ms: float,
) -> CaseResult:
    """The verdict: a divergence, a failed check or a nondeterministic trajectory fails."""
    first = runs[0]
    reacting = variant_reacting(expected, first)
    extra = [DIVERGENCE_CHECK] if first.divergence and not reacting else []
    if any(_fingerprint(r) != _fingerprint(first) for r in runs[1:]):
        extra.append(DETERMINISM_CHECK)
    run = Graded(first, tuple(c.seq for c in first.unused), tuple(extra))
    return decide(base, expected, run, checks, duration_ms)


@dataclass(frozen=True)
class Graded:
    """What a verdict is decided from besides the checks: the (first) run, the seqs of the
    recorded calls it left unused, and the replay's own failures (`replay.divergence`,
    `replay.determinism`); `corpus regrade` rebuilds it from a results document."""

    run: Replayed
    unused: tuple[int, ...]
    extra: tuple[str, ...]


def decide(
    base: dict[str, Any],
    expected: Expected,
    graded: Graded,
    checks: tuple[CheckResult, ...],
    duration_ms: float,
) -> CaseResult:
    """The verdict on a graded run (`check` and `regrade` alike): a replay failure or a failed
    check fails it; a known_unknown case is kept for the record."""
    first = graded.run
    reacting = variant_reacting(expected, first)
    failed = bool(graded.extra) or any(c.failed for c in checks)
    verdict = Verdict.KNOWN_UNKNOWN if expected.status == "known_unknown" else None
    verdict = verdict or (Verdict.FAILED if failed else Verdict.PASSED)
    return CaseResult(
        **base,
        verdict=verdict,
        duration_ms=duration_ms,
        checks=checks,
        divergence=first.divergence,
        sequence_diff=tuple(first.sequence_diff) if failed else (),
        unused=graded.unused,
        extra_failures=graded.extra,
        reason=_reason(expected, verdict, failed),
        notes=first.notes,
        trajectory=first.trajectory,
        ended_at=_ended(first) if reacting else None,
    )


def _ended(run: Replayed) -> int | None:
    d = run.divergence
    return d.step if d is not None and d.stopped else None


def variant_reacting(expected: Expected, run: Replayed) -> bool:
    """Whether the run's divergence came from a fault variant's reaction: the fault hit before
    it, so the agent took a path the recording never saw (docs/variants.md, "Recorded and
    live"). The trajectory so far is graded; a network attempt is never excused."""
    d = run.divergence
    if expected.derived_from is None or d is None or d.kind == "Network":
        return False
    return any(
        (e.extra or {}).get("origin") == FAULT and e.seq < d.step
        for e in run.events
        if isinstance(e, ToolCallEvent)
    )


def skipped(loaded: LoadedCase, reason: str) -> CaseResult:
    """The result of a case kept but not run."""
    return CaseResult(**base_of(loaded, None), verdict=Verdict.SKIPPED, reason=reason)


def broken(case_id: str, error: str) -> CaseResult:
    """The result of a case whose files cannot be used."""
    return CaseResult(case=case_id, verdict=Verdict.ERROR, error=error)


def base_of(loaded: LoadedCase, mode: str | None) -> dict[str, Any]:
    """The fields every result of a loaded case carries: id, status, tier, tags, mode, and
    the key of the trace it ran against."""
    exp = loaded.expected
    return {
        "case": loaded.case_id,
        "status": exp.status,
        "tier": exp.tier,
        "tags": exp.tags,
        "mode": mode,
        "trace_key": loaded.trace_key,
    }


def _reason(expected: Expected, verdict: Verdict, failed: bool) -> str | None:
    if verdict is not Verdict.KNOWN_UNKNOWN:
        return None
    outcome = "fails" if failed else "passes"
    return f"known_unknown: kept for the record, never counted; its replay {outcome}"


def _fingerprint(run: Replayed) -> str:
    return files.canonical_json([[e.to_doc() for e in run.events], run.terminal.to_doc()])


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
