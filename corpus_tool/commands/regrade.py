"""`corpus regrade RESULTS`: grade the runs a results document holds against the current
expected.yaml files; no agent, model or tool runs (a judge, when named, is asked)."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool.check.regrade import Spread, Variance, chosen, regrade_cases, spread
from corpus_tool.check.run import ReplayOptions, exit_code, finish
from corpus_tool.diff.judge import Judge, judge_named
from corpus_tool.errors import InputError, UsageError
from corpus_tool.grade import grade_checks
from corpus_tool.io import escapes, files
from corpus_tool.model.results import Results, read_results
from corpus_tool.replay import results as report
from corpus_tool.replay.cases import CaseResult
from corpus_tool.store.corpus import Corpus
from corpus_tool.validate.cache import cache_dir
from corpus_tool.validate.documents import DocumentCache
from corpus_tool.waivers.book import read_book, waive


@dataclass(frozen=True)
class RegradeOptions:
    """What the command line asked of `corpus regrade`."""

    stored: Path
    report: ReplayOptions
    cases: tuple[str, ...] = ()
    judge: str | None = None
    repeat: int | None = None


def regrade(
    corpus: Corpus,
    options: RegradeOptions,
    today: date,
    out: TextIO,
    environ: Mapping[str, str] | None = None,
) -> int:
    """A verdict line per regraded case, the details, the summary and the files, as `check`
    writes them; 1 when a case failed or is stale. The parsed case files are kept in the
    document cache (where `check` keeps its findings, `environ` default: the process's)."""
    if options.repeat is not None and options.judge is None:
        raise UsageError("--repeat N re-asks a judge: give --judge NAME with it")
    # the document's millions of values hold no cycles, and each full collection walked them
    # all again, while they were built and while the cases were graded (3 s of CPU of a warm
    # regrade's 9, 10,000 cases): read with the collector paused, then frozen (left out of
    # every later collection) until the command ends
    frozen = gc.get_freeze_count()  # a caller's own frozen objects (regrade run in-process)
    with files.collector_paused():
        stored = read_results(options.stored, checks=False)  # graded again, not read
        gc.freeze()
    try:
        return _regrade(corpus, options, today, out, stored, environ)
    finally:
        if not frozen:  # the document's values go back to the collector's care
            gc.unfreeze()


def _regrade(
    corpus: Corpus,
    options: RegradeOptions,
    today: date,
    out: TextIO,
    stored: Results,
    environ: Mapping[str, str] | None,
) -> int:
    name = corpus.config.name or corpus.root.name
    if stored.corpus != name:
        raise InputError(
            f"is a run of corpus {stored.corpus!r}, not of {name!r}; give the corpus it ran "
            "on with -C DIR",
            options.stored,
        )
    outcomes = chosen(stored, options.cases, str(options.stored))
    book = read_book(corpus, today)
    env = os.environ if environ is None else environ
    documents = DocumentCache(cache_dir(corpus.root, env))
    results: list[CaseResult] = []
    spreads: list[Spread] = []
    show = options.report.output == "text"
    with _judge(corpus, options.judge) as judge:
        for result, loaded in regrade_cases(corpus, outcomes, grade_checks, documents):
            result = waive(result, book)
            results.append(result)
            if show:
                print(escapes.line(report.headline(result)), file=out, flush=True)
            if judge is not None and loaded is not None and options.judge is not None:
                said = spread(judge, options.judge, options.repeat or 1, result, loaded)
                spreads.extend([said] if said is not None else [])
    variance = None
    if options.judge is not None:
        variance = Variance(options.judge, options.repeat or 1, tuple(spreads))
    extra = {"judge": variance.as_dict()} if variance is not None else {}
    doc = finish(corpus, results, options.report, out, "regrade", book, extra)
    if show:
        out.write(escapes.lines(_notes(corpus, stored.by_case(), options.cases)))
        if variance is not None:
            out.write(escapes.lines(variance.lines()))
    if options.report.html is not None and doc is not None:
        from corpus_tool.model.results import results_of
        from corpus_tool.report.write import run_report  # the HTML report only when asked

        run_report(options.report.html, results_of(doc), corpus)
    return exit_code(results)


@contextmanager
def _judge(corpus: Corpus, name: str | None) -> Iterator[Judge | None]:
    if name is None:
        yield None
        return
    with judge_named(corpus, name) as judge:
        yield judge


def _notes(corpus: Corpus, stored: Mapping[str, object], cases: Sequence[str]) -> list[str]:
    """The cases of the corpus the document holds no run of (added since): regrade cannot
    grade them."""
    if cases:
        return []
    new = [c for c in corpus.case_ids() if c not in stored]
    if not new:
        return []
    return [
        f"{len(new)} case(s) of the corpus are not in the document (added since the run?); "
        "`corpus check` replays them"
    ]
