"""Minimizing one case of a corpus: its settings, its agent, its trigger."""

from __future__ import annotations

from dataclasses import dataclass

from corpus_tool.corpus import Corpus
from corpus_tool.minimize.oracle import (
    Outcome,
    Trigger,
    default_trigger,
    failing_checks,
    parse_until,
    replay_oracle,
)
from corpus_tool.minimize.shrink import DEFAULT_MAX_REPLAYS, Progress, Shrunk, shrink
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace
from corpus_tool.replay.cases import GradeRun, mode_of
from corpus_tool.replay.loader import Agent
from corpus_tool.replay.matching import ignored_fields


@dataclass(frozen=True)
class Asked:
    """How to minimize: the trigger (`--until`; None: the default), --mode, --max-replays."""

    until: str | None = None
    mode: str | None = None
    max_replays: int = DEFAULT_MAX_REPLAYS


def shrink_case(
    corpus: Corpus,
    trace: Trace,
    expected: Expected,
    agent: Agent,
    asked: Asked,
    *,
    grader: GradeRun,
    progress: Progress = lambda replays, events: None,
) -> tuple[Shrunk, str]:
    """The minimized trace and the replay mode used (the case's own unless --mode says)."""
    mode = mode_of(corpus, expected, asked.mode)
    ignored = ignored_fields(corpus.setting("replay", "ignore_request_fields"))
    grade = failing_checks(grader, expected, corpus.config)
    oracle = replay_oracle(agent, expected, mode, ignored, grade)
    chosen = parse_until(asked.until) if asked.until is not None else None

    def pick(whole: Outcome) -> Trigger | None:
        return chosen or default_trigger(trace, expected, whole)

    return shrink(trace, oracle, pick, asked.max_replays, progress), mode
