"""The oracle on replay workers: each candidate trace is replayed in a worker process, sent as
`check` sends a case, and judged here by the code that gives `check` its verdicts.

The agent never runs in this process: a candidate whose worker hangs past the time limit, exits
or dies has no usable replay (`Symptoms.broken`), which never reproduces anything, and the pool
puts a fresh worker in its place for the next candidate.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

from corpus_tool.minimize.oracle import Oracle, Symptoms
from corpus_tool.model.events import error_types
from corpus_tool.model.results import Verdict
from corpus_tool.model.trace import Trace
from corpus_tool.replay.cases import CaseResult, GradeRun, LoadedCase, Ran, judge_case
from corpus_tool.replay.ledger import LiveRun
from corpus_tool.replay.runner import ran_of, started
from corpus_tool.replay.workers import wire
from corpus_tool.replay.workers.launch import launch_for
from corpus_tool.replay.workers.model_link import Answer
from corpus_tool.replay.workers.pool import Job, Pool
from corpus_tool.store.corpus import Corpus


@contextmanager
def workers(corpus: Corpus, timeout_s: float | None = None) -> Iterator[Pool]:
    """One replay worker for a whole minimization (the agent imported once, not per
    candidate); `timeout_s` (--timeout) overrides replay.timeout_s, as in `check`."""
    with Pool(launch_for(corpus, timeout_s)) as pool:
        yield pool


def pooled_oracle(
    corpus: Corpus,
    pool: Pool,
    request: wire.CaseRequest,
    *,
    grader: GradeRun,
    live: LiveRun | None = None,
) -> Oracle:
    """Replay each candidate as `request` asks (mode, ignored and compared request fields),
    with the candidate's document in place of the trace; grade it as `check` would (a live
    request's model calls answered by `live`)."""

    def oracle(trace: Trace) -> Symptoms:
        doc = trace.to_doc()
        asked = dataclasses.replace(request, trace=doc)
        loaded = LoadedCase(trace.id, request.expected, doc)
        answer = live.answer if live is not None else None
        result = judge_case(corpus, loaded, asked, _replayed(pool, asked, answer), grader=grader)
        if live is not None and asked.live is not None:
            result = live.finish(0, [result])  # the pool numbers its one job 0
        return symptoms_of(result)

    return oracle


def symptoms_of(result: CaseResult) -> Symptoms:
    """What minimization needs of a verdict: failing checks (those `check` counts), error types,
    the divergence kind, the terminal status; or why there is no usable run."""
    trajectory = result.trajectory
    if result.verdict is Verdict.ERROR or trajectory is None:
        return Symptoms(broken=result.error or "the case was not replayed")
    return Symptoms(
        tuple(result.failed_checks),
        frozenset(error_types(trajectory.events)),
        result.divergence.kind if result.divergence else None,
        trajectory.terminal.status,
    )


def _replayed(pool: Pool, request: wire.CaseRequest, answer: Answer | None) -> Ran:
    """One run of one candidate; an agent no worker can import is an input error (exit 2)."""
    ((_, outcome),) = list(started(pool.run([Job(wire.encode_case(request))], answer)))
    return ran_of(outcome)
