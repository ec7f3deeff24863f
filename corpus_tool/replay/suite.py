"""Running a selection of a corpus's cases with one import of the agent."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus_tool.corpus import Corpus, check_case_id
from corpus_tool.errors import CorpusError, UsageError
from corpus_tool.replay.cases import (
    CaseResult,
    GradeRun,
    LoadedCase,
    broken,
    load_case,
    run_case,
    skip_reason,
    skipped,
)
from corpus_tool.replay.loader import Agent, entrypoint


@dataclass(frozen=True)
class RunOptions:
    """Which cases, how: ids (empty: all), --mode, --tier, --repeat."""

    cases: tuple[str, ...] = ()
    mode: str | None = None
    tier: str | None = None
    repeat: int = 1


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
    """Replay and grade each case; `report` sees each result as it comes.

    `valid` holds case files this run already parsed and schema-checked (`corpus check`).
    """
    results: list[CaseResult] = []
    with ExitStack() as stack:
        agent: Agent | None = None
        for loaded_or_result in _load_all(corpus, ids, options, valid):
            if isinstance(loaded_or_result, CaseResult):
                result = loaded_or_result
            else:
                if agent is None:
                    agent = stack.enter_context(entrypoint(corpus))
                result = run_case(
                    corpus, loaded_or_result, agent, options.mode, options.repeat, grader=grader
                )
            results.append(result)
            report(result)
    return results


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
