"""Erasing cases (`corpus forget`) through a journal, so a killed run is finished by the next one.

The search happens under locks (`searching`): the forget lock, then the lock of every case,
after which the case ids are listed again; a set that changed meanwhile (a `corpus mv` renamed a
case) is let go and locked again, so the cases searched are all the corpus holds, and none can
be renamed away before they are removed. The plan (case ids and waiver files, never the value)
is written next; then each case is removed in one rename under its lock (staging.remove), then
each waiver; the journal goes last. Any later writing command finishes a journal it finds before
it writes anything itself, so a case that was being forgotten is never half there, and never
re-added by a recovery.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from corpus_tool.errors import BusyError, InputError
from corpus_tool.io import files
from corpus_tool.io.locks import exclusive
from corpus_tool.store import staging
from corpus_tool.store.corpus import WAIVERS, Corpus, is_case_id
from corpus_tool.store.faults import NO_STEPS, StepCounter

JOURNAL = ".corpus-forget.json"
LOCK = ".corpus-forget.lock"
BUSY = "busy: another `corpus forget` is running in this corpus; rerun when it has finished"
MOVING = (
    "busy: cases kept being written or renamed while `corpus forget` searched them; nothing "
    "was removed: rerun `corpus forget` when those commands have finished"
)
_ROUNDS = 100
_PAUSE_S = 0.02
"""How often (and how far apart) the cases are locked again before the search gives up busy."""


@dataclass(frozen=True)
class Erasure:
    """What one forget removes: case ids, and waiver files as corpus-relative POSIX paths."""

    cases: tuple[str, ...]
    waivers: tuple[str, ...]

    def as_json(self) -> str:
        return files.json_text({"cases": list(self.cases), "waivers": list(self.waivers)})


@contextlib.contextmanager
def searching(corpus: Corpus, steps: StepCounter = NO_STEPS) -> Iterator[list[str]]:
    """Yield the case ids of the corpus with the forget lock and every case's lock held.

    The ids are listed again once all are locked; when that differs (a case was renamed or
    added meanwhile), or a case is being written, the locks are let go and taken again, up to
    _ROUNDS times before BusyError. Held locks keep each listed case where it is until the block
    ends: `mv` of a locked case is refused busy, and no case can appear under a new id.
    """
    with exclusive(corpus.root / LOCK, BUSY):
        for _ in range(_ROUNDS):
            ids = corpus.case_ids()
            with contextlib.ExitStack() as stack:
                if _lock_all(stack, corpus, ids, steps) and corpus.case_ids() == ids:
                    yield ids
                    return
            time.sleep(_PAUSE_S)
    raise BusyError(MOVING)


def _lock_all(
    stack: contextlib.ExitStack, corpus: Corpus, ids: list[str], steps: StepCounter
) -> bool:
    """Take every case's lock onto `stack`; False when one is held by a write in progress."""
    try:
        for case_id in ids:
            stack.enter_context(staging.locked(corpus.cases_dir / case_id, steps))
    except BusyError:
        return False
    return True


def erase(corpus: Corpus, erasure: Erasure, steps: StepCounter = NO_STEPS) -> None:
    """Journal the plan, then carry it out; inside `searching`, whose locks cover every case."""
    _write_journal(corpus, erasure.as_json(), steps)
    steps.done("forget plan written")
    _carry_out(corpus, erasure, steps)


def _write_journal(corpus: Corpus, text: str, steps: StepCounter) -> None:
    """The journal appears whole: written aside (`journal_tmps` names), then renamed in place."""
    fd, tmp = tempfile.mkstemp(prefix=f"{JOURNAL}.", suffix=".tmp", dir=corpus.root)
    try:
        os.fchmod(fd, files.mode_for(corpus.root / JOURNAL, 0o666))
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        steps.done("forget plan written aside")
        os.replace(tmp, corpus.root / JOURNAL)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def journal_tmps(corpus: Corpus) -> list[Path]:
    """What a forget killed while writing its journal left: `.corpus-forget.json.<random>.tmp`
    (or `..corpus-forget.json.<random>.tmp`, the name earlier versions wrote it under)."""
    try:
        names = os.listdir(corpus.root)
    except OSError:
        return []
    return sorted(corpus.root / n for n in names if is_journal_tmp(n))


def is_journal_tmp(name: str) -> bool:
    """Whether a file name at the corpus root is a journal a killed forget was writing."""
    return name.startswith((f"{JOURNAL}.", f".{JOURNAL}.")) and name.endswith(".tmp")


def finish(corpus: Corpus, steps: StepCounter = NO_STEPS) -> Erasure | None:
    """Carry out the plan an interrupted forget journaled, if there is one; return it.

    A lock a killed forget left is removed too (taking it and letting go removes it), and so is
    a journal it was killed writing, before its rename (nothing was removed yet then).
    """
    names = (JOURNAL, LOCK)
    if not any(os.path.lexists(corpus.root / n) for n in names) and not journal_tmps(corpus):
        return None
    with exclusive(corpus.root / LOCK, BUSY):
        for tmp in journal_tmps(corpus):
            tmp.unlink(missing_ok=True)
            steps.done(f"removed {tmp.name}")
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
def _cases_locked(corpus: Corpus, erasure: Erasure, steps: StepCounter) -> Iterator[None]:
    """Every case of the plan locked (and its interrupted writes recovered) at once."""
    with contextlib.ExitStack() as stack:
        for case_id in erasure.cases:
            stack.enter_context(staging.locked(corpus.cases_dir / case_id, steps))
        yield


def _carry_out(corpus: Corpus, erasure: Erasure, steps: StepCounter) -> None:
    for case_id in erasure.cases:
        staging.remove(corpus.cases_dir / case_id, steps)
    for rel in erasure.waivers:
        path = corpus.root / Path(rel)
        if os.path.lexists(path):
            path.unlink()
            steps.done(f"removed {rel}")
    (corpus.root / JOURNAL).unlink()
    steps.done("forget plan removed")
