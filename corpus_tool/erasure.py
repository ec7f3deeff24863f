"""Erasing cases (`corpus forget`) through a journal, so a killed run is finished by the next one.

The plan (case ids and waiver files, never the value) is written first; then each case is
removed in one rename under its lock (staging.remove), then each waiver; the journal goes last.
Any later writing command finishes a journal it finds before it writes anything itself, so a
case that was being forgotten is never half there, and never re-added by a recovery.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from corpus_tool import files, staging
from corpus_tool.corpus import WAIVERS, Corpus, is_case_id
from corpus_tool.errors import InputError
from corpus_tool.faults import NO_STEPS, Steps
from corpus_tool.locks import exclusive

JOURNAL = ".corpus-forget.json"
LOCK = ".corpus-forget.lock"
BUSY = "busy: another `corpus forget` is running in this corpus; rerun when it has finished"


@dataclass(frozen=True)
class Erasure:
    """What one forget removes: case ids, and waiver files as corpus-relative POSIX paths."""

    cases: tuple[str, ...]
    waivers: tuple[str, ...]

    def as_json(self) -> str:
        return files.json_text({"cases": list(self.cases), "waivers": list(self.waivers)})


def erase(corpus: Corpus, erasure: Erasure, steps: Steps = NO_STEPS) -> None:
    """Journal the plan, then carry it out; every case is locked before anything is written."""
    with exclusive(corpus.root / LOCK, BUSY), _cases_locked(corpus, erasure, steps):
        files.atomic_write(corpus.root / JOURNAL, erasure.as_json())
        steps.done("forget plan written")
        _carry_out(corpus, erasure, steps)


def finish(corpus: Corpus, steps: Steps = NO_STEPS) -> Erasure | None:
    """Carry out the plan an interrupted forget journaled, if there is one; return it.

    A lock a killed forget left is removed too (taking it and letting go removes it).
    """
    if not any(os.path.lexists(corpus.root / name) for name in (JOURNAL, LOCK)):
        return None
    with exclusive(corpus.root / LOCK, BUSY):
        erasure = pending(corpus)
        if erasure is None:  # finished by another run meanwhile
            return None
        with _cases_locked(corpus, erasure, steps):
            _carry_out(corpus, erasure, steps)
    return erasure


def pending(corpus: Corpus) -> Erasure | None:
    """The plan of an interrupted forget (None when there is none); a bad journal is an error."""
    path = corpus.root / JOURNAL
    if not os.path.lexists(path):
        return None
    try:
        data = json.loads(files.read_bytes(path, within=corpus.root))
        erasure = Erasure(tuple(data["cases"]), tuple(data["waivers"]))
    except (ValueError, TypeError, KeyError):
        erasure = None
    if erasure is None or not _sane(erasure):
        raise InputError(
            "not a journal corpus forget wrote; check which cases and waivers it names, then "
            "delete it and rerun `corpus forget`",
            path,
        )
    return erasure


def _sane(erasure: Erasure) -> bool:
    """Only case ids and waiver files: a tampered journal must not remove anything else."""
    cases = all(isinstance(c, str) and is_case_id(c) for c in erasure.cases)
    return cases and all(_waiver_path(w) for w in erasure.waivers)


def _waiver_path(rel: object) -> bool:
    if not isinstance(rel, str):
        return False
    folder, _, name = rel.partition("/")
    return (
        folder == WAIVERS
        and "/" not in name
        and not name.startswith(".")
        and name.endswith((".yaml", ".yml"))
    )


@contextlib.contextmanager
def _cases_locked(corpus: Corpus, erasure: Erasure, steps: Steps) -> Iterator[None]:
    """Every case of the plan locked (and its interrupted writes recovered) at once."""
    with contextlib.ExitStack() as stack:
        for case_id in erasure.cases:
            stack.enter_context(staging.locked(corpus.cases_dir / case_id, steps))
        yield


def _carry_out(corpus: Corpus, erasure: Erasure, steps: Steps) -> None:
    for case_id in erasure.cases:
        staging.remove(corpus.cases_dir / case_id, steps)
    for rel in erasure.waivers:
        path = corpus.root / Path(rel)
        if os.path.lexists(path):
            path.unlink()
            steps.done(f"removed {rel}")
    (corpus.root / JOURNAL).unlink()
    steps.done("forget plan removed")
