"""Waivers applied to verdicts: which excuse a failing case, which have expired, which are unused.

The one place a waiver turns a failure into `waived`: `corpus check`, `corpus replay`, the
pytest plugin and `corpus gate` all come here. A waiver holds only while it is valid (what
`corpus validate` checks: its form, its id, its case, its check names, `waivers.max_days`) and
not expired; anything else is listed, never silently applied.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from corpus_tool.errors import InputError
from corpus_tool.io import files
from corpus_tool.model.checks import ALL
from corpus_tool.model.findings import Finding
from corpus_tool.model.json import JsonObject
from corpus_tool.model.results import Verdict
from corpus_tool.model.waiver import ACTIVE, CHECK, EXPIRED, Broken, Waiver
from corpus_tool.store.corpus import Corpus
from corpus_tool.validate.rules import check_waiver

if TYPE_CHECKING:  # the replay engine stays unloaded for `status` and `waivers list`
    from corpus_tool.replay.cases import CaseResult


@dataclass(frozen=True)
class Book:
    """The check waivers of a corpus as they stand on one day."""

    active: tuple[Waiver, ...] = ()
    expired: tuple[Waiver, ...] = ()
    broken: tuple[Broken, ...] = ()

    def of(self, case: str) -> tuple[Waiver, ...]:
        """The active waivers of a case."""
        return tuple(w for w in self.active if w.case == case)

    def entries(self) -> list[JsonObject]:
        """Every waiver with its state, sorted by id: what a results document records."""
        found = [{**w.as_dict(), "state": ACTIVE} for w in self.active]
        found += [{**w.as_dict(), "state": EXPIRED} for w in self.expired]
        found += [b.as_dict() for b in self.broken]
        return sorted(found, key=lambda entry: str(entry["id"]))


def read_book(corpus: Corpus, today: date) -> Book:
    """Every check waiver of the corpus, sorted into active, expired and broken."""
    active: list[Waiver] = []
    expired: list[Waiver] = []
    broken: list[Broken] = []
    for path in corpus.waiver_paths():
        found = _read(corpus, path, today)
        if isinstance(found, Broken):
            broken.append(found)
        elif found is not None:
            (active if found.active(today) else expired).append(found)
    return Book(tuple(active), tuple(expired), tuple(broken))


def _read(corpus: Corpus, path: Path, today: date) -> Waiver | Broken | None:
    """The waiver in a file; None for a redaction waiver (the allow-list's business)."""
    problems = [f for f in check_waiver(corpus, path, today, _name) if f.rule != "waiver.expired"]
    if problems:
        return Broken(path.stem, _said(problems[0]))
    try:
        doc = files.parse_yaml(files.read_bytes(path, within=corpus.root), path)
    except InputError as err:  # changed since it was checked a moment ago
        return Broken(path.stem, err.message)
    waiver = Waiver.from_doc(doc)
    return waiver if waiver.kind == CHECK else None


def _name(path: Path) -> str:
    return path.name


def _said(finding: Finding) -> str:
    where = f"{finding.path}:{finding.line}" if finding.line else finding.path
    return f"{where}: {finding.message}"


def book_from_entries(entries: Iterable[Waiver | Broken], today: date) -> Book:
    """The waivers a results document recorded, judged again for `today`."""
    active: list[Waiver] = []
    expired: list[Waiver] = []
    broken: list[Broken] = []
    for entry in entries:
        if isinstance(entry, Broken):
            broken.append(entry)
        else:
            (active if entry.active(today) else expired).append(entry)
    return Book(tuple(active), tuple(expired), tuple(broken))


def excusing(failing: Sequence[str], waivers: Sequence[Waiver]) -> tuple[bool, tuple[Waiver, ...]]:
    """Whether the waivers together name every failing check, and those naming one of them."""
    naming = tuple(w for w in waivers if any(w.names(c) for c in failing))
    covered = bool(failing) and all(any(w.names(c) for w in naming) for c in failing)
    return covered, naming


def waive(result: CaseResult, book: Book) -> CaseResult:
    """The result with the book applied: a failure its active waivers cover becomes `waived`.

    An error is never waived (a case that could not run proves nothing), nor is a
    known_unknown case ever counted to begin with.
    """
    if result.verdict is not Verdict.FAILED:
        return result
    covered, naming = excusing(result.failed_checks, book.of(result.case))
    if not naming:
        return result
    verdict = Verdict.WAIVED if covered else Verdict.FAILED
    return replace(result, verdict=verdict, waivers=naming)


class Judged(Protocol):
    """What a run said of a case, as the replay's `CaseResult` or a results document's
    `CaseOutcome` holds it: enough to tell whether a waiver still excuses anything."""

    @property
    def case(self) -> str: ...

    @property
    def verdict(self) -> Verdict: ...

    @property
    def failed_checks(self) -> Sequence[str]: ...

    @property
    def not_reached(self) -> Sequence[str]: ...


RAN = frozenset({Verdict.PASSED, Verdict.FAILED, Verdict.WAIVED})
"""The verdicts of a case that ran to a decision: only they show a waiver unused."""


def is_unused(waiver: Waiver, judged: Judged) -> bool:
    """Whether a run shows the waiver excuses nothing: every check it names passed."""
    if judged.verdict not in RAN:
        return False  # not run, an error, known_unknown: nothing is known
    if ALL in waiver.checks:
        return not judged.failed_checks and not judged.not_reached
    return not any(waiver.names(c) for c in (*judged.failed_checks, *judged.not_reached))


def unused(book: Book, results: Iterable[Judged]) -> list[Waiver]:
    """Active waivers whose checks all passed in these results (cases not run say nothing):
    the results of a run, or the cases of a results document."""
    ran = {r.case: r for r in results}
    return [w for w in book.active if w.case in ran and is_unused(w, ran[w.case])]
