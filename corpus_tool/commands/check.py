"""`corpus check`: validate, replay and grade the whole corpus: the main job."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool import validation
from corpus_tool.commands.replay import ReplayOptions, execute, finish
from corpus_tool.corpus import Corpus
from corpus_tool.findings import Finding, sort_findings
from corpus_tool.replay.suite import select


def check(corpus: Corpus, options: ReplayOptions, today: date, cwd: Path, out: TextIO) -> int:
    """Validation findings first, then a verdict per case; 1 when anything is wrong."""
    findings = _validate(corpus, today, cwd)
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


def _validate(corpus: Corpus, today: date, cwd: Path) -> list[Finding]:
    def show(path: Path) -> str:
        try:
            return str(path.relative_to(cwd))
        except ValueError:
            return str(path)

    found = validation.check_config(corpus, show)
    for case_id in corpus.case_ids():
        found.extend(validation.check_case(corpus, case_id, show))
    for waiver in corpus.waiver_paths():
        found.extend(validation.check_waiver(corpus, waiver, today, show))
    return sort_findings(found)
