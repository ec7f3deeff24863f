"""What `corpus add` prints of the cases it planned: a few lines each, or JSON summaries."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from corpus_tool.author.stages import Planned
from corpus_tool.io import files
from corpus_tool.store.corpus import Corpus


def report(corpus: Corpus, planned: Sequence[Planned], output: str, out: TextIO) -> None:
    """The cases as text (`output` "text") or JSON: one summary, or a list for many."""
    summaries = [summary(corpus, p) for p in planned]
    if output == "json":
        doc: Any = summaries[0] if len(summaries) == 1 else summaries
        out.write(files.json_text(doc))
        return
    for case, shown in zip(planned, summaries, strict=True):
        _text(case, shown, out)


def _text(case: Planned, shown: dict[str, Any], out: TextIO) -> None:
    where = shown["path"]
    out.write(f"added case {case.case_id}: {shown['events']} events -> {where}\n")
    record = case.doc.get("redaction") or {}
    out.write(f"  redacted {record.get('replaced', 0)} values (key {record.get('key_id')})\n")
    for problem in case.incomplete:
        out.write(f"  incomplete: {problem}\n")
    if case.minimized is not None:
        shrunk = case.minimized
        out.write(
            f"  minimized ({shrunk['trigger']}): {shrunk['before']['events']} -> "
            f"{shrunk['after']['events']} events in {shrunk['replays']} replay(s)\n"
        )
        out.writelines(f"  review expected.yaml: {note}\n" for note in shrunk["stale"])
    expected = Path(where) / "expected.yaml"
    if case.keeps_expected:
        out.write(
            f"  kept the reviewed {expected} (not redrafted); check that its expectations "
            "still fit the new trace\n"
        )
    else:
        out.write(f"  review {expected} (lines marked REVIEW) before committing\n")


def summary(corpus: Corpus, case: Planned) -> dict[str, Any]:
    """One case as `--json` shows it."""
    return {
        "case": case.case_id,
        "path": str(corpus.case_dir(case.case_id)),
        "format": case.doc["source"]["format"],
        "events": case.events,
        "status": "known_unknown" if case.incomplete else "active",
        "incomplete": case.incomplete,
        "redacted": (case.doc.get("redaction") or {}).get("replaced", 0),
        "expected": "kept" if case.keeps_expected else "drafted",
        **({"minimized": case.minimized} if case.minimized is not None else {}),
    }
