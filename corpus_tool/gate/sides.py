"""One side of the gate: replay cases of a corpus (a checkout of one revision) into the results
document `corpus replay --results` writes, so both ways into the gate judge the same data.

`side_pool` keeps one side's replay workers across the rounds of `--repeat auto`: each round
replays the open cases again, and a worker that has imported the agent takes the next round's
attempts as it took the last one's, instead of a fresh process starting per round."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path

from corpus_tool.errors import CorpusError, InputError, UsageError
from corpus_tool.grade import grade_checks
from corpus_tool.model.results import Results, results_of
from corpus_tool.replay.cases import CaseResult
from corpus_tool.replay.results import document
from corpus_tool.replay.runner import RunOptions, run_cases
from corpus_tool.replay.workers.launch import launch_for
from corpus_tool.replay.workers.pool import Pool
from corpus_tool.store.corpus import CONFIG_NAME, Corpus, load_config
from corpus_tool.validate.documents import DocumentCache
from corpus_tool.validate.loading import cached_load
from corpus_tool.waivers.book import read_book, waive

Say = Callable[[CaseResult], None]


def open_side(root: Path, label: str) -> Corpus | None:
    """The corpus at `root` on one side; None when that revision has no corpus.yaml there."""
    if not (root / CONFIG_NAME).is_file():
        return None
    try:
        return Corpus(root, load_config(root))
    except CorpusError as err:
        raise InputError(f"{label}: {err.message}", err.path, err.line) from None


@contextlib.contextmanager
def side_pool(corpus: Corpus | None, options: RunOptions) -> Iterator[Pool | None]:
    """Replay workers for one side, kept for the block and stopped after it (None: the side
    has no corpus or no agent to start, and each replay says so as it would alone)."""
    if corpus is None:
        yield None
        return
    try:
        launch = launch_for(corpus, options.timeout_s)
    except UsageError:  # no agent: the replay reports it, if a case needs one
        yield None
        return
    with Pool(launch, options.workers) as pool:
        yield pool


def replay_side(
    corpus: Corpus | None,
    ids: Sequence[str],
    options: RunOptions,
    today: date,
    say: Say,
    label: str,
    pool: Pool | None = None,
    documents: DocumentCache | None = None,
) -> Results:
    """The results document of replaying `ids` (those the side has) with its own waivers;
    `pool`: workers kept from an earlier round (side_pool), else the replay starts its own;
    `documents`: where the parsed case files are kept between runs (an unchanged one is not
    parsed again)."""
    if corpus is None:
        return empty_document()
    book = read_book(corpus, today)
    present = set(corpus.case_ids())
    wanted = [c for c in ids if c in present]
    results: list[CaseResult] = []
    asked = replace(options, cases=tuple(wanted))
    try:
        load = cached_load(corpus, documents) if documents is not None else None
        for result in run_cases(corpus, wanted, asked, grader=grade_checks, load=load, pool=pool):
            results.append(waive(result, book))
            say(results[-1])
    except CorpusError as err:  # say which side could not run: the paths are temporary
        raise InputError(f"{label}: {err.message}", err.path, err.line) from None
    return results_of(document(corpus, results, "replay", book.entries()))


def empty_document() -> Results:
    """The results of a side without a corpus: no case, no waiver."""
    return results_of(document(Corpus(Path(".")), [], "replay", []))
