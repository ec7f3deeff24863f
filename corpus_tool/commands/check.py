"""`corpus check`: validate, replay and grade the whole corpus: the main job."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool.commands.replay import ReplayOptions, execute, exit_code, finish
from corpus_tool.commands.validate import corpus_findings, shower
from corpus_tool.corpus import Corpus
from corpus_tool.gate.waivers import read_book
from corpus_tool.replay.suite import select
from corpus_tool.validation import Valid


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
    env = os.environ if environ is None else environ
    valid: Valid = {}  # what validation parsed and found sound, replay takes as is
    findings = corpus_findings(corpus, today, shower(cwd), env, valid)
    if options.output == "text":
        for finding in findings:
            out.write(finding.text() + "\n")
        if findings:
            out.write(f"{len(findings)} validation finding(s); see `corpus validate`\n\n")
    book = read_book(corpus, today)
    results = execute(corpus, select(corpus, options.run), options, out, book, valid)
    extra = {"findings": [dataclasses.asdict(f) for f in findings]}
    finish(corpus, results, options, out, "check", book, extra, valid)
    return 1 if findings else exit_code(results)
