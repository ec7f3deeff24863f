"""Running a selection of a corpus's cases in replay workers: the one place verdicts come from.

Every case file is read (or taken from validation) before any agent code runs, and each case
is graded here, from the files as read then: nothing a worker does can change what is graded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus_tool.corpus import Corpus, check_case_id
from corpus_tool.errors import CorpusError, InputError, UsageError
from corpus_tool.replay import wire
from corpus_tool.replay.cases import (
    CaseResult,
    GradeRun,
    LoadedCase,
    Ran,
    broken,
    case_spec,
    judge_case,
    load_case,
    skip_reason,
    skipped,
)
from corpus_tool.replay.engine import CaseSpec
from corpus_tool.replay.launch import launch_for
from corpus_tool.replay.pool import Job, Outcome, Pool, StartError


@dataclass(frozen=True)
class RunOptions:
    """Which cases, how: ids (empty: all), --mode, --tier, --repeat, --workers, --timeout."""

    cases: tuple[str, ...] = ()
    mode: str | None = None
    tier: str | None = None
    repeat: int = 1
    workers: int = 1
    timeout_s: float | None = None


def select(corpus: Corpus, options: RunOptions) -> list[str]:
    """The case ids to report on, sorted; an unknown id is a usage error."""
    known = corpus.case_ids()
    if not options.cases:
        return known
    missing = [c for c in options.cases if check_case_id(c) not in known]
    if missing:
        raise UsageError(f"no such case: {', '.join(missing)}; see {corpus.cases_dir}")
    return sorted(set(options.cases))


def run(
    corpus: Corpus,
    ids: Sequence[str],
    options: RunOptions,
    report: Callable[[CaseResult], None] = lambda result: None,
    *,
    grader: GradeRun,
    valid: Mapping[Path, Any] | None = None,
) -> list[CaseResult]:
    """Replay and grade each case; `report` sees each result as it comes, in id order.

    `valid` holds case files this run already parsed and schema-checked (`corpus check`).
    """
    results: list[CaseResult] = []
    for result in run_cases(corpus, ids, options, grader=grader, valid=valid):
        results.append(result)
        report(result)
    return results


def run_cases(
    corpus: Corpus,
    ids: Sequence[str],
    options: RunOptions,
    *,
    grader: GradeRun,
    valid: Mapping[Path, Any] | None = None,
    pool: Pool | None = None,
) -> Iterator[CaseResult]:
    """Each case's verdict, in the order of `ids` whatever order the workers finish in.

    `pool` (the pytest plugin's, kept across items) is used and left running; without it the
    run starts its own, `options.workers` wide, only once a case needs an agent.
    """
    entries = list(_load_all(corpus, ids, options, valid))  # all read before any agent runs
    specs = {
        i: case_spec(corpus, e, options.mode)
        for i, e in enumerate(entries)
        if isinstance(e, LoadedCase)
    }
    order = _InOrder(entries)
    yield from order.take()
    if not specs:
        return
    jobs = [Job(wire.encode_case(spec), options.repeat) for spec in specs.values()]
    indices = list(specs)
    with _workers(corpus, options, pool) as workers:
        for job_index, outcome in _started(workers.run(jobs)):
            index = indices[job_index]
            loaded = entries[index]
            assert isinstance(loaded, LoadedCase)
            order.done(index, _verdict(corpus, loaded, specs[index], outcome, grader))
            yield from order.take()


def _verdict(
    corpus: Corpus, loaded: LoadedCase, spec: CaseSpec, outcome: Outcome, grader: GradeRun
) -> CaseResult:
    return judge_case(corpus, loaded, spec, ran_of(outcome), grader=grader)


def ran_of(outcome: Outcome) -> Ran:
    """A pool's outcome as the grader takes it: the decoded runs, or the one-line error."""
    seen: dict[str, Any] = {"output": outcome.output, "duration_ms": outcome.duration_ms}
    if outcome.fault is not None:
        return Ran(error=outcome.fault.reason, stack=outcome.fault.stack, **seen)
    for reply in outcome.replies:
        if reply.get("kind") == "error":
            return Ran(error=str(reply.get("error")), **seen)
    try:
        runs = [
            wire.replay_from(r.get("replay") if r.get("kind") == "replay" else None)
            for r in outcome.replies
        ]
    except wire.WireError as err:
        return Ran(error=f"the worker sent an unusable replay: {err}", **seen)
    return Ran(runs=runs, **seen)


def _started(outcomes: Iterator[tuple[int, Outcome]]) -> Iterator[tuple[int, Outcome]]:
    """The outcomes; an agent that cannot be imported at all is an input error (exit 2)."""
    try:
        yield from outcomes
    except StartError as err:
        raise InputError(str(err)) from None


@contextmanager
def _workers(corpus: Corpus, options: RunOptions, pool: Pool | None) -> Iterator[Pool]:
    if pool is not None:
        yield pool
        return
    with Pool(launch_for(corpus, options.timeout_s), options.workers) as made:
        yield made


class _InOrder:
    """Releases results in the order of the entries, as soon as every earlier one is known."""

    def __init__(self, entries: Sequence[LoadedCase | CaseResult]) -> None:
        self._entries = entries
        self._done: dict[int, CaseResult] = {}
        self._next = 0

    def done(self, index: int, result: CaseResult) -> None:
        self._done[index] = result

    def take(self) -> Iterator[CaseResult]:
        while self._next < len(self._entries):
            entry = self._entries[self._next]
            result = entry if isinstance(entry, CaseResult) else self._done.pop(self._next, None)
            if result is None:
                return
            self._next += 1
            yield result


def _load_all(
    corpus: Corpus, ids: Sequence[str], options: RunOptions, valid: Mapping[Path, Any] | None
) -> Iterator[LoadedCase | CaseResult]:
    for case_id in ids:
        try:
            loaded = load_case(corpus, case_id, valid)
        except CorpusError as err:  # a broken file, or a stray directory whose name is no id
            yield broken(case_id, str(err))
            continue
        if options.tier is not None and loaded.expected.tier != options.tier:
            continue
        reason = skip_reason(loaded.expected)
        yield skipped(loaded, reason) if reason else loaded
