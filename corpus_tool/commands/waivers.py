"""`corpus waivers list | new | expired | unused`: waiver housekeeping."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, TextIO

from corpus_tool.io import escapes, files
from corpus_tool.model.results import read_results
from corpus_tool.model.waiver import ACTIVE, EXPIRED, Waiver
from corpus_tool.store import recovery
from corpus_tool.store.corpus import Corpus
from corpus_tool.store.faults import StepCounter
from corpus_tool.waivers.book import Book, read_book, unused, waive
from corpus_tool.waivers.drafting import Draft, create, document


@dataclass(frozen=True)
class WaiversOptions:
    """The command line of `corpus waivers`."""

    action: str  # list | new | expired | unused
    output: str = "text"
    draft: Draft | None = None
    results: Path | None = None


def waivers(corpus: Corpus, options: WaiversOptions, today: date, cwd: Path, out: TextIO) -> int:
    """Run one action; `expired` and `unused` exit 1 when they find any."""
    book = read_book(corpus, today)
    if options.action == "new":
        assert options.draft is not None
        return _new(corpus, options.draft, options.output, today, cwd, out)
    if options.action == "expired":
        return _show(list(book.expired), "expired", options.output, out, EXPIRED)
    if options.action == "unused":
        found = _unused(corpus, book, options.results)
        return _show(found, "unused (every check it names passes)", options.output, out, ACTIVE)
    return _list(book, options.output, out)


def _list(book: Book, output: str, out: TextIO) -> int:
    entries = book.entries()
    if output == "json":
        out.write(files.json_text({"waivers": entries}))
        return 0
    for entry in entries:
        out.write(escapes.line(_line(entry)) + "\n")
    out.write(
        f"{len(book.active)} active, {len(book.expired)} expired, {len(book.broken)} invalid\n"
    )
    return 0


def _line(entry: dict[str, Any]) -> str:
    if entry["state"] == "invalid":
        return f"{entry['id']:<12} invalid: {entry['problem']}"
    ticket = f", ticket {entry['ticket']}" if entry.get("ticket") else ""
    return (
        f"{entry['id']:<12} {entry['state']:<8} case {entry['case']}, checks "
        f"{', '.join(entry['checks'])}, owner {entry['owner']}, expires {entry['expires']}"
        f"{ticket}: {entry['reason']}"
    )


def _show(found: list[Waiver], what: str, output: str, out: TextIO, state: str) -> int:
    if output == "json":
        out.write(files.json_text({"waivers": [{**w.as_dict(), "state": state} for w in found]}))
    else:
        for waiver in found:
            out.write(escapes.line(_line({**waiver.as_dict(), "state": state})) + "\n")
        out.write(f"{len(found)} waiver(s) {what}\n")
    return 1 if found else 0


def _unused(corpus: Corpus, book: Book, results: Path | None) -> list[Waiver]:
    """From a results document when given, else by replaying the waived cases now."""
    if results is not None:
        return unused(book, read_results(results).cases)
    ids = sorted({str(w.case) for w in book.active})
    if not ids:
        return []
    # imported here: only this path replays; `waivers list` and `new` stay as quick as `status`
    from corpus_tool.grade import grade_checks
    from corpus_tool.replay.runner import RunOptions, run

    ran = run(corpus, ids, RunOptions(tuple(ids)), grader=grade_checks)
    return unused(book, [waive(r, book) for r in ran])


def _new(corpus: Corpus, draft: Draft, output: str, today: date, cwd: Path, out: TextIO) -> int:
    """Write a waiver; what interrupted writes left (a killed `waivers new` too) goes first."""
    steps = StepCounter.from_environ(os.environ)
    for note in recovery.recover(corpus, steps):
        sys.stderr.write(f"corpus waivers new: {note}\n")
    doc = document(corpus, draft, today)
    path = create(corpus, doc, chosen=draft.id is not None, steps=steps)
    shown = os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)
    if output == "json":
        out.write(files.json_text({"path": shown, "waiver": doc}))
        return 0
    made = Waiver.from_doc(doc)
    out.write(
        f"wrote {shown}: waives {', '.join(made.checks)} of case {made.case} until "
        f"{made.expires.isoformat()} (owner {made.owner})\n"
        f"commit it for review in the pull request: git add {shown}\n"
    )
    return 0
