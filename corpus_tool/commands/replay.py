"""`corpus replay [CASE...]`: run cases against the agent with the recording as the world."""

from __future__ import annotations

from datetime import date
from typing import TextIO

from corpus_tool.check.run import ReplayOptions, execute, exit_code, finish
from corpus_tool.model.results import results_of
from corpus_tool.replay.runner import requested_cases
from corpus_tool.store.corpus import Corpus
from corpus_tool.waivers.book import read_book


def replay(corpus: Corpus, options: ReplayOptions, out: TextIO, today: date) -> int:
    """Replay and grade the selected cases; 0 when none fails (waived ones included), else 1."""
    book = read_book(corpus, today)
    results = execute(corpus, requested_cases(corpus, options.run), options, out, book)
    doc = finish(corpus, results, options, out, "replay", book)
    if options.html is not None and doc is not None:
        from corpus_tool.report.write import run_report  # the HTML report only when asked

        run_report(options.html, results_of(doc), corpus)
    return exit_code(results)
