"""Grading the runs a results document holds against the corpus's expected.yaml files as they
are now, without running any agent, model or tool (`corpus regrade`).

Each case of the document is graded from its stored trajectory exactly as `check` grades a
fresh replay (`replay.cases.decide`, the same graders, the same waivers), so an edit of
`expected.yaml` is judged on what the stored runs already show. A case whose trace.yaml changed
since the run (its sha256 is not the one the document recorded), or whose run the document does
not hold, is `stale`: never graded against a trace it did not run against.

With a judge (`--judge NAME --repeat N`) each graded run is also put to the judge N times
(the recording as A, the stored run as B) and the spread of its answers is reported: how often
it disagreed with itself on the same pair.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from corpus_tool.diff.judge import Judge, JudgeRequest, opinion
from corpus_tool.errors import CorpusError, UsageError
from corpus_tool.io import files
from corpus_tool.model.checks import DETERMINISM_CHECK, DIVERGENCE_CHECK
from corpus_tool.model.config import Mode
from corpus_tool.model.divergence import Divergence, DivergenceKind
from corpus_tool.model.events import Event
from corpus_tool.model.expected import Expected
from corpus_tool.model.results import CaseOutcome, Results, Verdict
from corpus_tool.model.trace import Terminal, Trace, Trajectory
from corpus_tool.replay.cases import (
    CaseResult,
    Graded,
    GradeRun,
    LoadedCase,
    base_of,
    broken,
    decide,
    mode_of,
    read_checked,
    replay_key_of,
    skip_reason,
    skipped,
    trace_key_of,
    trace_request,
    variant_reacting,
)
from corpus_tool.replay.engine import CaseSpec, Replayed, cut_short, ending
from corpus_tool.replay.requests import RequestNote
from corpus_tool.replay.sequence import sequence_diff
from corpus_tool.store.corpus import Corpus
from corpus_tool.validate import loading
from corpus_tool.validate.documents import DocumentCache

ENDINGS = frozenset({DivergenceKind.TERMINAL_STATE, DivergenceKind.SEMANTIC_OUTPUT})
"""The divergences strict replay finds at the end of a run from the ending it expects."""
AGAIN = "replay it with `corpus check` (or `corpus replay CASE`)"


def chosen(stored: Results, cases: Sequence[str], where: str) -> list[CaseOutcome]:
    """The document's cases to regrade: all, or those `--cases` names (each must be there)."""
    if not cases:
        return list(stored.cases)
    by_case = stored.by_case()
    missing = [c for c in cases if c not in by_case]
    if missing:
        raise UsageError(
            f"{where} holds no run of case(s) {', '.join(missing)}; "
            "`corpus check --results FILE` writes a document with every case"
        )
    return [by_case[c] for c in dict.fromkeys(cases)]


@dataclass(frozen=True)
class Current:
    """A case's files as they are now: expected.yaml read and checked, trace.yaml's bytes (its
    key); the trace is parsed only when grading needs it (a divergence stopped the run, the
    ending changed, a judge asks), so regrading a corpus reads YAML mostly for expected.yaml."""

    corpus: Corpus
    case_id: str
    expected: Expected
    trace_raw: bytes
    documents: DocumentCache | None = None

    @classmethod
    def read(
        cls,
        corpus: Corpus,
        case_id: str,
        plain: bool,
        documents: DocumentCache | None = None,
        folder: Path | None = None,
    ) -> Current:
        """The case's files; a bad expected.yaml is an InputError naming it. `plain`: cases/
        is a directory of the corpus, no symlink on the way (`plain_cases`); `documents`: where
        checked documents are kept between runs (an unchanged file is not parsed again);
        `folder`: the case's directory, when the caller has it."""
        folder = corpus.case_dir(case_id) if folder is None else folder
        plain = plain and not folder.is_symlink()
        raw = {kind: _read(corpus, folder / f"{kind}.yaml", plain) for kind in KINDS}
        expected = checked(corpus, case_id, "expected", raw["expected"], documents)
        return cls(corpus, case_id, Expected.from_doc(expected), raw["trace"], documents)

    @property
    def trace_key(self) -> str:
        return trace_key_of(self.trace_raw)

    @functools.cached_property
    def trace(self) -> Trace:
        """The trace, parsed now (its bytes are the ones the run replayed: `trace_key`)."""
        doc = checked(self.corpus, self.case_id, "trace", self.trace_raw, self.documents)
        return Trace.from_doc(doc)

    def loaded(self) -> LoadedCase:
        """As replay reads a case (`skipped` and the base fields of a result take it)."""
        return LoadedCase(self.case_id, self.expected, None, self.trace_key)


KINDS = ("trace", "expected")


def checked(
    corpus: Corpus, case_id: str, kind: str, raw: bytes, documents: DocumentCache | None
) -> Any:
    """`read_checked` of a case file's bytes, through the document cache: an entry is kept
    only for a file that parsed and fit its schema, under a key of its bytes and the tool
    (`read_key`); a missing, stale or suspect entry is a parse, and the entry written again."""
    if documents is None:
        return read_checked(corpus, case_id, kind, raw)
    return loading.checked(corpus, case_id, kind, raw, documents)


def _read(corpus: Corpus, path: Path, plain: bool) -> bytes:
    """A case file's bytes, never through a symlink out of the corpus: checked by resolving
    the path (as every reader does) unless neither the file nor its case directory is a
    symlink under a plain cases/ (`plain`: the caller found the directory is not; one lstat
    of the file, not a walk of the whole path)."""
    if plain and not path.is_symlink():
        return files.read_bytes(path)
    return files.read_bytes(path, within=corpus.root)


def plain_cases(corpus: Corpus) -> bool:
    """Whether cases/ resolves to itself inside the corpus root (no symlink on the way)."""
    try:
        return corpus.cases_dir.resolve() == corpus.root.resolve() / corpus.cases_dir.name
    except (OSError, RuntimeError):
        return False


def regrade_cases(
    corpus: Corpus,
    outcomes: Sequence[CaseOutcome],
    grader: GradeRun,
    documents: DocumentCache | None = None,
) -> Iterator[tuple[CaseResult, Current | None]]:
    """Each stored case regraded, in the document's order, with the case as read now (None
    when it could not be read); `documents`: the parsed files kept between runs."""
    plain = plain_cases(corpus)
    for outcome in outcomes:
        yield regraded(corpus, outcome, grader, plain, documents)


def regraded(
    corpus: Corpus,
    outcome: CaseOutcome,
    grader: GradeRun,
    plain: bool = False,
    documents: DocumentCache | None = None,
) -> tuple[CaseResult, Current | None]:
    """One stored run graded against the case's files now; stale when it cannot be."""
    started = time.perf_counter()
    folder = corpus.case_dir(outcome.case)
    if not folder.is_dir():
        gone = CaseResult(case=outcome.case, verdict=Verdict.STALE, trace_key=outcome.trace_key)
        return replace(gone, reason="stale: the case is no longer in the corpus"), None
    try:
        current = Current.read(corpus, outcome.case, plain, documents, folder)
    except CorpusError as err:  # as check reports a case whose files cannot be used
        return broken(outcome.case, str(err)), None
    loaded = current.loaded()
    skip = skip_reason(loaded.expected)
    if skip is not None:
        return skipped(loaded, skip), current
    why = stale_reason(corpus, outcome, loaded)
    if why is not None:
        return stale(loaded, outcome, why), current
    mode = str(outcome.mode) if outcome.mode else mode_of(corpus, loaded.expected, None)
    base = {
        **base_of(loaded, mode),
        "replay_key": outcome.replay_key,
        "recorded_end": outcome.recorded_end.to_doc() if outcome.recorded_end else None,
    }
    if outcome.trajectory is None:  # the run could not replay it: what it said stands
        error = outcome.error or "the case was not replayed"
        kept = CaseResult(**base, verdict=Verdict.ERROR, error=error, stack=outcome.stack)
        return replace(kept, output=outcome.output, duration_ms=outcome.duration_ms), current
    run = stored_run(outcome, outcome.trajectory, current, mode)
    reacting = variant_reacting(loaded.expected, run)  # a fault variant's reaction: as check
    extra: tuple[str, ...] = (DIVERGENCE_CHECK,) if run.divergence and not reacting else ()
    if DETERMINISM_CHECK in outcome.failed_checks:  # --repeat's runs differed: still so
        extra += (DETERMINISM_CHECK,)
    graded = Graded(run, outcome.unused, extra)
    checks = tuple(grader(loaded.expected.expect, run.trajectory, corpus.config))
    took = round((time.perf_counter() - started) * 1000, 1)
    result = decide(base, loaded.expected, graded, checks, took)
    return replace(result, output=outcome.output), current


def stale_reason(corpus: Corpus, outcome: CaseOutcome, loaded: LoadedCase) -> str | None:
    """Why the stored run of a case cannot be graded against its files now; None when it can."""
    replay_key = replay_key_of(trace_request(corpus, None, loaded.expected, None))
    if outcome.trace_key is None or (outcome.trajectory and outcome.recorded_end is None):
        return (
            "stale: the document does not record the trace.yaml the case ran against "
            "(written by an older corpus-tool)"
        )
    if outcome.trace_key != loaded.trace_key:
        return "stale: trace.yaml changed since the run"
    if outcome.replay_key is not None and outcome.replay_key != replay_key:
        return (
            "stale: what replay answers it with changed since the run (expected.yaml stubs or "
            "continuation, or the request fields compared)"
        )
    now = mode_of(corpus, loaded.expected, None)
    if outcome.mode not in (None, Mode.LIVE) and outcome.mode != now:
        return f"stale: the run replayed it {outcome.mode}; it replays {now} now"
    if outcome.trajectory is None and outcome.verdict is not Verdict.ERROR:
        return f"stale: the document holds no run of it ({outcome.verdict} then)"
    if outcome.attempts is not None and outcome.attempts > 1:
        return (
            f"stale: it ran --model live --repeat {outcome.attempts}; the document holds one "
            "attempt's run, not each attempt's"
        )
    return None


def stale(loaded: LoadedCase, outcome: CaseOutcome, why: str) -> CaseResult:
    """A case regrade will not grade: never against a trace it did not run against."""
    mode = str(outcome.mode) if outcome.mode else None
    keys = {"trace_key": outcome.trace_key, "replay_key": outcome.replay_key}
    fields = {**base_of(loaded, mode), **keys}
    return CaseResult(**fields, verdict=Verdict.STALE, reason=f"{why}; {AGAIN}")


def stored_run(
    outcome: CaseOutcome, trajectory: Trajectory, current: Current, mode: str
) -> Replayed:
    """The stored run as replay made it: its events, ending and divergence; where a divergence
    stopped it, what the recording could still have answered (worked out from the case's files,
    which are the ones it ran against)."""
    events, terminal = trajectory.events, trajectory.terminal
    notes = tuple(RequestNote(n.path, n.carried_by, n.steps, said=n.message) for n in outcome.notes)
    stored = outcome.divergence
    if stored is not None and stored.stopped:  # the run itself stopped there
        cut = cut_short(CaseSpec(current.trace, current.expected, mode), events, stored)
        return Replayed(events, terminal, stored, (), outcome.sequence_diff, notes, cut)
    divergence = _end_of(outcome, current.expected, events, terminal, mode)
    if divergence is None:
        return Replayed(events, terminal, None, (), (), notes)
    if divergence == stored:  # what the run found: its sequence diff stands
        return Replayed(events, terminal, divergence, (), outcome.sequence_diff, notes)
    diff = sequence_diff(current.trace, events, terminal, None)
    return Replayed(events, terminal, divergence, (), tuple(diff), notes)


def _end_of(
    outcome: CaseOutcome,
    expected: Expected,
    events: Sequence[Event],
    terminal: Terminal,
    mode: str,
) -> Divergence | None:
    """What strict replay finds at the end of the stored run (`replay.engine.ended`): recorded
    calls left unused are the run's own finding; the ending is decided again, since it
    depends on the `expect.terminal` of now."""
    stored = outcome.divergence
    if stored is not None and stored.kind not in ENDINGS:
        return stored  # found before the ending (recorded calls left unused, the network)
    if mode != Mode.STRICT or outcome.unused:
        return stored
    assert outcome.recorded_end is not None  # stale_reason: a document without it is stale
    return ending(outcome.recorded_end, expected, events, terminal)


@dataclass(frozen=True)
class Spread:
    """A judge's answers on one case, asked the same question N times."""

    case: str
    answers: tuple[str, ...]

    @property
    def counts(self) -> dict[str, int]:
        """How often it gave each answer, most often first (then by word)."""
        counted = Counter(self.answers)
        return dict(sorted(counted.items(), key=lambda item: (-item[1], item[0])))

    @property
    def disagreement(self) -> float:
        """The share of its answers that differ from its most common one (0: it always said
        the same)."""
        if not self.answers:
            return 0.0
        return 1 - max(Counter(self.answers).values()) / len(self.answers)

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "answers": self.counts,
            "disagreement": round(self.disagreement, 4),
        }

    def text(self) -> str:
        said = ", ".join(f"{word} {n}" for word, n in self.counts.items())
        return f"{self.case}: {said} (disagreement {self.disagreement:.2f})"


def spread(
    judge: Judge, name: str, repeat: int, result: CaseResult, current: Current
) -> Spread | None:
    """The judge asked `repeat` times about a graded case (None: no run to judge)."""
    if result.trajectory is None or result.verdict in (Verdict.STALE, Verdict.ERROR):
        return None
    trace = current.trace
    request = JudgeRequest(
        result.case,
        trace.input.to_doc(),
        Trajectory(trace.events, trace.terminal),
        result.trajectory,
    )
    return Spread(result.case, tuple(opinion(judge, name, request) for _ in range(repeat)))


@dataclass(frozen=True)
class Variance:
    """A judge's spread over the cases of a regrade: `--judge NAME --repeat N`."""

    name: str
    repeat: int
    cases: tuple[Spread, ...]

    @property
    def disagreement(self) -> float:
        """The mean disagreement over the judged cases."""
        if not self.cases:
            return 0.0
        return sum(s.disagreement for s in self.cases) / len(self.cases)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "repeat": self.repeat,
            "disagreement": round(self.disagreement, 4),
            "cases": [s.as_dict() for s in self.cases],
        }

    def lines(self) -> list[str]:
        varied = sum(1 for s in self.cases if s.disagreement > 0)
        head = (
            f"judge {self.name}, asked {self.repeat} time(s) a case: it disagreed with itself "
            f"on {varied} of {len(self.cases)} case(s), {self.disagreement:.2f} of its answers "
            "on average"
        )
        return [head, *(f"  {s.text()}" for s in self.cases)]
