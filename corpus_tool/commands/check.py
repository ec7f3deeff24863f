"""`corpus check`: validate, replay and grade the whole corpus: the main job."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool.check.run import ReplayOptions, execute, exit_code, finish
from corpus_tool.errors import CorpusError
from corpus_tool.model.findings import Finding, sort_findings
from corpus_tool.model.results import results_of
from corpus_tool.replay.cases import LoadedCase, load_case
from corpus_tool.replay.runner import RunOptions, requested_cases
from corpus_tool.replay.workers.launch import launch_for
from corpus_tool.replay.workers.pool import Pool
from corpus_tool.store import recovery
from corpus_tool.store.corpus import Corpus
from corpus_tool.validate.run import Caches, ValidationRun, pending_forget, relative_to
from corpus_tool.waivers.book import read_book


def check(
    corpus: Corpus,
    options: ReplayOptions,
    today: date,
    cwd: Path,
    out: TextIO,
    environ: Mapping[str, str] | None = None,
    cached: bool = True,
) -> int:
    """Validation findings first, then a verdict per case; 1 when anything is wrong.

    `environ` (default: the process environment) may hold the redaction key; `cached`: reuse
    the findings of unchanged cases.
    """
    env = os.environ if environ is None else environ
    ids = requested_cases(corpus, options.run)
    with _early_pool(corpus, options.run, len(ids)) as pool:
        return _check(corpus, options, today, cwd, out, env, cached, ids, pool)


def _check(
    corpus: Corpus,
    options: ReplayOptions,
    today: date,
    cwd: Path,
    out: TextIO,
    env: Mapping[str, str],
    cached: bool,
    ids: list[str],
    pool: Pool | None,
) -> int:
    caches = Caches(env, cached)
    show = relative_to(cwd)
    forgetting, found = pending_forget(corpus, show)
    run = ValidationRun(corpus, today, show, env, caches.get(corpus.root), None, forgetting)
    validating = Validating(run, ids, [*found, *recovery.findings(corpus, show)])
    preface = validating.preface if options.output == "text" else None
    book = read_book(corpus, today)
    results = execute(corpus, ids, options, out, book, validating.load, preface, pool)
    findings = validating.finish()
    caches.save()
    extra = {"findings": [dataclasses.asdict(f) for f in findings]}
    doc = finish(corpus, results, options, out, "check", book, extra)
    if options.html is not None and doc is not None:
        from corpus_tool.report.write import run_report  # the HTML report only when asked

        run_report(options.html, results_of(doc), corpus)
    return 1 if findings else exit_code(results)


@contextmanager
def _early_pool(corpus: Corpus, options: RunOptions, cases: int) -> Iterator[Pool | None]:
    """The replay workers, started before the corpus is read and validated, so that their
    start (and the agent's import) overlaps this process's own work. None when the corpus
    cannot launch workers (no agent, a key passed to it): the run then says so as before, once
    a case needs a worker; and an agent that fails to import is reported by the run, only
    when a case needs it."""
    if not cases:
        yield None
        return
    try:
        launch = launch_for(corpus, options.timeout_s)
    except CorpusError:
        yield None
        return
    with Pool(launch, options.workers) as pool:
        pool.start(min(cases, options.workers))
        yield pool


class Validating:
    """The whole corpus validated case by case as replay reads each case: the files are read
    and parsed once, and a case's documents are let go once it is graded."""

    def __init__(self, run: ValidationRun, ids: Sequence[str], found: list[Finding]) -> None:
        self._run = run
        self._left = dict.fromkeys(ids)  # cases not validated yet, in order
        found = [*found, *run.problems, *run.config()]
        for waiver in run.corpus.waiver_paths():
            found.extend(run.waiver(waiver))
        self._found = found
        self._all: list[Finding] | None = None

    def load(self, case_id: str) -> LoadedCase:
        """Validate a case, then read it for replay from what validation parsed."""
        checked = self._run.case(case_id, documents_wanted=True)
        self._found.extend(checked.findings)
        self._left.pop(case_id, None)
        if not self._left:
            self._left = {}  # a dict keeps its size when emptied: 3.8 MB at 100,000 cases
        return load_case(
            self._run.corpus, case_id, checked.valid, checked.documents, checked.trace_key
        )

    def findings(self) -> list[Finding] | None:
        """Every finding, sorted, once every case was validated; None before."""
        if self._left:
            return None
        if self._all is None:  # the whole-corpus rules need every file checked first
            self._all = sort_findings([*self._found, *self._run.whole()])
        return self._all

    def finish(self) -> list[Finding]:
        """Every finding; cases replay did not read are validated now."""
        for case_id in list(self._left):
            self._found.extend(self._run.case(case_id).findings)
            self._left.pop(case_id)
        found = self.findings()
        assert found is not None
        return found

    def preface(self) -> list[str] | None:
        """The text report's first lines: the findings, when all are known."""
        found = self.findings()
        if found is None:
            return None
        lines = [f.text() for f in found]
        if found:
            lines += [f"{len(found)} validation finding(s); see `corpus validate`", ""]
        return lines
