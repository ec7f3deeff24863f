"""Running a selection of a corpus's cases in replay workers: the one place verdicts come from.

Each case is graded here, from its files as they were before any agent code ran (a file
changed since is an error for its case): nothing a worker does can change what is graded.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from corpus_tool.errors import CorpusError, InputError, UsageError
from corpus_tool.replay.cases import (
    CaseResult,
    GradeRun,
    LoadedCase,
    Ran,
    broken,
    case_request,
    judge_case,
    load_case,
    skip_reason,
    skipped,
)
from corpus_tool.replay.ledger import BUDGET, LiveRun
from corpus_tool.replay.workers import wire
from corpus_tool.replay.workers.launch import launch_for
from corpus_tool.replay.workers.pool import Job, Outcome, Pool, StartError
from corpus_tool.store.corpus import Corpus, check_case_id


@dataclass(frozen=True)
class RunOptions:
    """Which cases, how: ids (empty: all), --mode, --tier, --repeat, --workers, --timeout;
    --model, --live-from, --max-model-calls, --min-pass-rate (live runs)."""

    cases: tuple[str, ...] = ()
    mode: str | None = None
    tier: str | None = None
    repeat: int = 1
    workers: int = 1
    timeout_s: float | None = None
    model: str | None = None
    live_from: int | None = None
    max_model_calls: int | None = None
    min_pass_rate: float | None = None


def requested_cases(corpus: Corpus, options: RunOptions) -> list[str]:
    """The case ids to report on, sorted; an unknown id is a usage error."""
    known = corpus.case_ids()
    if not options.cases:
        return known
    missing = [c for c in options.cases if check_case_id(c) not in known]
    if missing:
        raise UsageError(f"no such case: {', '.join(missing)}; see {corpus.cases_dir}")
    return sorted(set(options.cases))


Load = Callable[[str], LoadedCase]
"""Reads a case by id (a CorpusError when its files cannot be used)."""


def run(
    corpus: Corpus,
    ids: Sequence[str],
    options: RunOptions,
    report: Callable[[CaseResult], None] = lambda result: None,
    *,
    grader: GradeRun,
    load: Load | None = None,
    keep: Callable[[CaseResult], CaseResult] = lambda result: result,
) -> list[CaseResult]:
    """Replay and grade each case; `report` sees each result as it comes, in id order.

    `load` reads a case (default: `load_case`; `corpus check` validates it on the way);
    `keep` is what of each result the returned list holds (a long run drops what it will not
    show, such as the trajectories of passing cases).
    """
    results: list[CaseResult] = []
    for result in run_cases(corpus, ids, options, grader=grader, load=load):
        report(result)
        results.append(keep(result))
    return results


def run_cases(
    corpus: Corpus,
    ids: Sequence[str],
    options: RunOptions,
    *,
    grader: GradeRun,
    load: Load | None = None,
    pool: Pool | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[CaseResult]:
    """Each case's verdict, in the order of `ids` whatever order the workers finish in.

    A case is read as a worker can take it, so reading (and, for `check`, validating) one
    case overlaps the replay of those before it, and memory holds only the cases in flight.
    Yet what a case file held before any agent ran is what is graded: every file is looked at
    first (`Snapshot`), and one changed since is an error for its case.

    `pool` (the pytest plugin's, kept across items) is used and left running; without it the
    run starts its own, `options.workers` wide, only once a case needs an agent. Once `stop()`
    is true no further case is read: the run ends with the verdicts of the cases in flight
    (the plugin's, when pytest runs an item other than the next one; the workers keep going).
    """
    with LiveRun.open(
        corpus,
        options.model,
        options.live_from,
        options.max_model_calls,
        options.min_pass_rate,
        options.timeout_s,
    ) as live:  # before any case: a bad replay.live_model is exit 2 here
        yield from _run_cases(corpus, ids, options, grader, load, pool, live, stop)


def _run_cases(
    corpus: Corpus,
    ids: Sequence[str],
    options: RunOptions,
    grader: GradeRun,
    load: Load | None,
    pool: Pool | None,
    live: LiveRun,
    stop: Callable[[], bool],
) -> Iterator[CaseResult]:
    snapshot = Snapshot(corpus, ids)
    order = _InOrder()
    flight: dict[int, tuple[int, LoadedCase, wire.CaseRequest]] = {}  # job -> place, case, ask

    def jobs() -> Iterator[Job]:
        reader = load or functools.partial(load_case, corpus)
        numbers = itertools.count()  # the pool numbers jobs in the order it takes them
        for entry in _entries(corpus, ids, options, reader, snapshot, stop):
            if isinstance(entry, CaseResult):
                order.add(entry)
                continue
            request = live.request(
                corpus, case_request(corpus, entry, options.mode), entry.expected
            )
            if request.live is not None and live.spent():
                order.add(live.skip(skipped(entry, BUDGET)))
                continue
            flight[next(numbers)] = (order.add(None), entry, request)
            yield Job(wire.encode_case(request), options.repeat)

    queue = jobs()
    first = next(queue, None)
    yield from order.take()
    if first is None:
        return
    with _workers(corpus, options, pool) as workers:
        budget = live.max_calls is not None  # decided as each case starts, not ahead
        outcomes = workers.run(
            itertools.chain([first], queue), answer=live.answer, just_in_time=budget
        )
        for job, outcome in started(outcomes):
            place, loaded, request = flight.pop(job)
            ran = ran_of(outcome)
            if request.live is not None:  # each attempt graded: answers vary run to run
                attempts = [replace(ran, runs=[r]) for r in ran.runs] or [ran]
                graded = [judge_case(corpus, loaded, request, a, grader=grader) for a in attempts]
                order.done(place, live.finish(job, graded))
            else:
                order.done(place, judge_case(corpus, loaded, request, ran, grader=grader))
            yield from order.take()
    yield from order.take()


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


def started(outcomes: Iterator[tuple[int, Outcome]]) -> Iterator[tuple[int, Outcome]]:
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
    """Releases results in the order cases were read, as soon as every earlier one is known."""

    def __init__(self) -> None:
        self._done: dict[int, CaseResult] = {}
        self._places = 0
        self._next = 0

    def add(self, result: CaseResult | None) -> int:
        """A place for the next case: its result now, or later through done()."""
        place = self._places
        self._places += 1
        if result is not None:
            self._done[place] = result
        return place

    def done(self, place: int, result: CaseResult) -> None:
        self._done[place] = result

    def take(self) -> Iterator[CaseResult]:
        while self._next in self._done:
            yield self._done.pop(self._next)
            self._next += 1


def _entries(
    corpus: Corpus,
    ids: Sequence[str],
    options: RunOptions,
    load: Load,
    snapshot: Snapshot,
    stop: Callable[[], bool],
) -> Iterator[LoadedCase | CaseResult]:
    for place, case_id in enumerate(ids):
        if stop():
            return
        try:
            loaded = load(case_id)
            snapshot.check(place, case_id)
        except CorpusError as err:  # a broken file, or a stray directory whose name is no id
            yield broken(case_id, str(err))
            continue
        if options.tier is not None and loaded.expected.tier != options.tier:
            continue
        reason = skip_reason(loaded.expected)
        yield skipped(loaded, reason) if reason else loaded


class Snapshot:
    """How each case file looked before any agent ran: inode, size, change and modification
    times (the change time no program can set back). A case read later is checked against it.

    Kept as a keyed digest a file, in one array in the order of the run's cases: a tuple of
    four ints a file, under a tuple key, cost 70 MB at 100,000 cases, more than anything else
    a run holds; these cost 3.2 MB. The key is drawn for the run and never leaves this
    process, so no change can be made to match a digest it cannot compute."""

    def __init__(self, corpus: Corpus, ids: Sequence[str]) -> None:
        self._corpus = corpus
        self._secret = os.urandom(32)  # (os, not `secrets`: no import for the same bytes)
        where = str(corpus.cases_dir)  # paths as strings: a Path per file costs more than stat
        self._seen = bytearray()
        for case_id in ids:
            self._seen += self._look(os.path.join(where, case_id))

    def check(self, place: int, case_id: str) -> None:
        """Raise InputError when a file of the case (`place` in the ids taken) changed since."""
        now = self._look(os.path.join(str(self._corpus.cases_dir), case_id))
        start = place * len(now)
        then = self._seen[start : start + len(now)]
        for n, name in enumerate(CASE_FILES):  # name the file that changed
            if now[n * _DIGEST : (n + 1) * _DIGEST] != then[n * _DIGEST : (n + 1) * _DIGEST]:
                path = self._corpus.cases_dir / case_id / name
                raise InputError("changed while this run was going on; run it again", path)

    def _look(self, folder: str) -> bytes:
        """A digest of each case file's stat data under the run's key (of nothing, for a
        file that cannot be stat'ed)."""
        parts = []
        for name in CASE_FILES:
            try:
                info = os.stat(os.path.join(folder, name))
                seen = f"{info.st_ino} {info.st_size} {info.st_ctime_ns} {info.st_mtime_ns}"
            except (OSError, ValueError):
                seen = "none"
            mac = hashlib.blake2b(seen.encode(), digest_size=_DIGEST, key=self._secret)
            parts.append(mac.digest())
        return b"".join(parts)


CASE_FILES = ("trace.yaml", "expected.yaml")
_DIGEST = 16
