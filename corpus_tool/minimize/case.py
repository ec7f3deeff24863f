"""Minimizing one case of a corpus: its settings, its replay workers, its trigger."""

from __future__ import annotations

from dataclasses import dataclass

from corpus_tool.minimize.oracle import Goal, Symptoms, default_trigger, parse_until
from corpus_tool.minimize.pooled import pooled_oracle
from corpus_tool.minimize.shrink import DEFAULT_MAX_REPLAYS, Progress, Shrunk, shrink
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace
from corpus_tool.replay.cases import GradeRun, trace_request
from corpus_tool.replay.ledger import LiveRun
from corpus_tool.replay.workers.pool import Pool
from corpus_tool.store.corpus import Corpus


@dataclass(frozen=True)
class Asked:
    """How to minimize: the trigger (`--until`; None: the default), --mode, --max-replays,
    --model (recorded or live: the live model answers each candidate)."""

    until: str | None = None
    mode: str | None = None
    max_replays: int = DEFAULT_MAX_REPLAYS
    model: str | None = None


def shrink_case(
    corpus: Corpus,
    trace: Trace,
    expected: Expected,
    pool: Pool,
    asked: Asked,
    *,
    grader: GradeRun,
    progress: Progress = lambda replays, events: None,
) -> tuple[Shrunk, str]:
    """The minimized trace and the replay mode used (the case's own unless --mode says).

    Every candidate is replayed in `pool`'s workers as `check` would replay the case: the same
    mode, ignored fields and compared request fields (`trace_request`).
    """
    chosen = parse_until(asked.until) if asked.until is not None else None

    def pick(whole: Symptoms) -> Goal | None:
        return chosen or default_trigger(trace, expected, whole)

    with LiveRun.open(corpus, asked.model, timeout_s=pool.launch.timeout_s) as live:
        recorded = trace_request(corpus, trace.to_doc(), expected, asked.mode)
        request = live.request(corpus, recorded, expected)
        oracle = pooled_oracle(corpus, pool, request, grader=grader, live=live)
        return shrink(trace, oracle, pick, asked.max_replays, progress), request.mode
