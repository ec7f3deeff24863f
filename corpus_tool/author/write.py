"""Writing planned cases: each case in one rename under its lock, every lock taken first."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TextIO

from corpus_tool.author.stages import Planned
from corpus_tool.io import files
from corpus_tool.store import recovery, staging
from corpus_tool.store.corpus import Corpus
from corpus_tool.store.faults import NO_STEPS, StepCounter


def write(
    corpus: Corpus,
    planned: Sequence[Planned],
    force: bool,
    steps: StepCounter = NO_STEPS,
    err: TextIO | None = None,
) -> None:
    """Write checked cases, each in one rename under its lock, every lock taken first.

    Interrupted writes in the corpus are finished or undone before (noted on `err`); a case
    another command is writing stops the whole write with BusyError before anything changes.
    """
    if not planned:
        return
    corpus.check_no_twins(case.case_id for case in planned)  # one listing for a whole batch
    for note in recovery.recover(corpus, steps):
        if err is not None:
            err.write(f"corpus add: {note}\n")
    with contextlib.ExitStack() as stack:
        for case in planned:
            stack.enter_context(staging.locked(case.target, steps))
        for case in planned:
            staging.write_case(case.target, files.dump_yaml(case.doc), case.expected, force, steps)
