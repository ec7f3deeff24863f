"""`corpus status`: counts by tier and status, version drift, waivers needing care."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, TextIO

from corpus_tool.gate.drift import SOON_DAYS, CorpusStatus, corpus_status
from corpus_tool.io import escapes, files
from corpus_tool.model.results import read_results
from corpus_tool.store.corpus import Corpus
from corpus_tool.waivers.book import read_book


def show_status(corpus: Corpus, results: Path | None, output: str, today: date, out: TextIO) -> int:
    """Print the status; 0 always (drift and expiring waivers are information)."""
    doc = read_results(results) if results is not None else None
    found = corpus_status(corpus, read_book(corpus, today), today, doc)
    if output == "json":
        out.write(files.json_text(_json(found)))
    else:
        out.write(_text(found, corpus))
    return 0


def _json(found: CorpusStatus) -> dict[str, Any]:
    return {
        "counts": found.counts,
        "unreadable": list(found.unreadable),
        "drift": [d.as_dict() for d in found.drift],
        "waivers": {
            "expiring": [w.as_dict() for w in found.expiring],
            "expired": [w.as_dict() for w in found.expired],
            "unused": None if found.unused is None else [w.as_dict() for w in found.unused],
        },
    }


def _text(found: CorpusStatus, corpus: Corpus) -> str:
    lines = ["cases by tier and status:"]
    for tier, states in found.counts.items():
        lines.append(f"  {tier}: " + ", ".join(f"{n} {state}" for state, n in states.items()))
    if not found.counts:
        lines.append("  (no case)")
    if found.unreadable:
        lines.append(f"unreadable (see `corpus validate`): {', '.join(found.unreadable)}")
    lines.append(f"recorded under other versions than {corpus.config_path.name} (drift):")
    lines.extend(f"  {d.case}: {d.fact} {d.recorded} (current: {d.current})" for d in found.drift)
    if not found.drift:
        lines.append("  none")
    lines.append(f"waivers expiring within {SOON_DAYS} days:")
    lines.extend(f"  {w.shown()}: case {w.case}" for w in found.expiring)
    if not found.expiring:
        lines.append("  none")
    lines.extend(f"waiver {w.shown()} has expired: it waives nothing" for w in found.expired)
    if found.unused is not None:
        lines.append("waivers unused in the results (every check they name passes):")
        lines.extend(f"  {w.id}: case {w.case}" for w in found.unused)
        if not found.unused:
            lines.append("  none")
    return escapes.lines(lines)
