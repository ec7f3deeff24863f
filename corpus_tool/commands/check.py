"""`corpus check`: validate, replay and grade the whole corpus: the main job."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool import validation
from corpus_tool.commands.replay import ReplayOptions, execute, finish
from corpus_tool.corpus import Corpus
from corpus_tool.findings import Finding, sort_findings
from corpus_tool.redact.guard import open_guard
from corpus_tool.replay.suite import select


def check(
    corpus: Corpus,
    options: ReplayOptions,
    today: date,
    cwd: Path,
    out: TextIO,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Validation findings first, then a verdict per case; 1 when anything is wrong.

    `environ` (default: the process environment) may hold the redaction key.
    """
    findings = _validate(corpus, today, cwd, os.environ if environ is None else environ)
    if options.output == "text":
        for finding in findings:
            out.write(finding.text() + "\n")
        if findings:
            out.write(f"{len(findings)} validation finding(s); see `corpus validate`\n\n")
    results = execute(corpus, select(corpus, options.run), options, out)
    extra = {"findings": [dataclasses.asdict(f) for f in findings]}
    finish(corpus, results, options, out, "check", extra)
    failing = findings or any(r.counts_as_failure for r in results)
    return 1 if failing else 0


def _validate(corpus: Corpus, today: date, cwd: Path, environ: Mapping[str, str]) -> list[Finding]:
    def show(path: Path) -> str:
        try:
            return str(path.relative_to(cwd))
        except ValueError:
            return str(path)

    guard = open_guard(corpus.root, corpus.config, corpus.waiver_paths(), environ, today, show)
    found = guard.problems + validation.check_config(corpus, show, guard.inspect)
    found.extend(validation.check_layout(corpus, show))
    for case_id in corpus.case_ids():
        found.extend(validation.check_case(corpus, case_id, show, guard.inspect))
    for waiver in corpus.waiver_paths():
        found.extend(validation.check_waiver(corpus, waiver, today, show, guard.inspect))
    return sort_findings(found + guard.stale())
