"""`corpus add`: ingest one incident as a case (trace.yaml + a drafted expected.yaml).

The pipeline (read, slice, redact, check, draft, minimize, write) is author.plan's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

from corpus_tool.author.plan import add_incident
from corpus_tool.author.render import report
from corpus_tool.author.stages import AddOptions
from corpus_tool.store.corpus import Corpus


def add(
    corpus: Corpus,
    options: AddOptions,
    out: TextIO,
    environ: Mapping[str, str] | None = None,
    err: TextIO | None = None,
) -> int:
    """Ingest the incident; on any refusal nothing of the case is written.

    Every value of the trace is redacted with the corpus key (from `environ`, default the
    process environment) before anything is written; without a key nothing is.
    A file with many runs (benchmark results) needs `--select` (one run) or `--all` (each
    run its own case). `--all` is all-or-nothing: every run is checked before any is written.
    Interrupted writes found in the corpus are finished or undone first (noted on `err`).
    """
    environ = os.environ if environ is None else environ
    planned = add_incident(corpus, options, environ, err)
    report(corpus, planned, options.output, out)
    return 0
