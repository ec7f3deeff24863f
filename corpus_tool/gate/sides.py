"""One side of the gate: replay cases of a corpus (a checkout of one revision) into the results
document `corpus replay --results` writes, so both ways into the gate judge the same data."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path

from corpus_tool.errors import CorpusError, InputError
from corpus_tool.grade import grade_checks
from corpus_tool.model.results import Results, results_of
from corpus_tool.replay.cases import CaseResult
from corpus_tool.replay.results import document
from corpus_tool.replay.runner import RunOptions, run
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


def replay_side(
    corpus: Corpus | None,
    ids: Sequence[str],
    options: RunOptions,
    today: date,
    say: Say,
    label: str,
    documents: DocumentCache | None = None,
) -> Results:
    """The results document of replaying `ids` (those the side has) with its own waivers;
    `documents`: where the parsed case files are kept between runs (an unchanged one is not
    parsed again)."""
    if corpus is None:
        return empty_document()
    book = read_book(corpus, today)
    present = set(corpus.case_ids())
    wanted = [c for c in ids if c in present]
    results: list[CaseResult] = []

    def seen(result: CaseResult) -> None:
        results.append(waive(result, book))
        say(results[-1])

    try:
        load = cached_load(corpus, documents) if documents is not None else None
        run(
            corpus,
            wanted,
            replace(options, cases=tuple(wanted)),
            seen,
            grader=grade_checks,
            load=load,
        )
    except CorpusError as err:  # say which side could not run: the paths are temporary
        raise InputError(f"{label}: {err.message}", err.path, err.line) from None
    return results_of(document(corpus, results, "replay", book.entries()))


def empty_document() -> Results:
    """The results of a side without a corpus: no case, no waiver."""
    return results_of(document(Corpus(Path(".")), [], "replay", []))
