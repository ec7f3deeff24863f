"""`corpus forget VALUE [--dry-run]`: remove every case that holds a value's pseudonym.

The right to erasure without keeping the value: the value is pseudonymised with the corpus key
exactly as `corpus add` would, and each case file is searched for the result. Check waivers of
removed cases go with them. A real run searches with every case locked (erasure.searching), so a
case renamed meanwhile is never missed; the removal is journaled (erasure.py): a killed run is
finished by the next writing command, so a case being forgotten is never left half there.

Exit 0 only when every case could be searched; a case redacted under another key cannot be,
so the value may remain in it: exit 1, with a summary line.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from corpus_tool import redact
from corpus_tool.errors import InputError, UsageError
from corpus_tool.io import files
from corpus_tool.store import erasure, recovery
from corpus_tool.store.corpus import Corpus
from corpus_tool.store.faults import StepCounter


@dataclass(frozen=True)
class ForgetOptions:
    """What the command line asked of `corpus forget`."""

    value: str
    dry_run: bool = False
    output: str = "text"


@dataclass(frozen=True)
class Plan:
    """What forgetting removes (case ids, waiver files) and the cases it cannot search."""

    cases: list[str]
    waivers: list[Path]
    other_key: list[str]


def forget(
    corpus: Corpus,
    options: ForgetOptions,
    out: TextIO,
    environ: Mapping[str, str],
    err: TextIO | None = None,
) -> int:
    """List (--dry-run) or remove the cases holding the value's pseudonym.

    A real run first finishes interrupted writes (an earlier forget included; noted on `err`),
    so what it searches is what the corpus holds, then searches and removes with every case
    locked. 1 when some case could not be searched (another key), else 0.
    """
    key = redact.load_key(corpus.config.redaction, corpus.root, environ)
    wanted = redact.needles(options.value, key)
    if not wanted:
        raise UsageError(
            "no detector recognises this value, so no case can hold a pseudonym of it; give an "
            "email, phone number, ID, card or account number, or a token, as it was written"
        )
    steps = StepCounter.from_environ(environ)
    if not options.dry_run:
        for note in recovery.recover(corpus, steps):
            if err is not None:
                err.write(f"corpus forget: {note}\n")
    if options.dry_run:
        plan = _plan(corpus, corpus.case_ids(), wanted, key.key_id)
    else:
        with erasure.searching(corpus, steps) as ids:
            plan = _plan(corpus, ids, wanted, key.key_id)
            if plan.cases:
                rel = tuple(p.relative_to(corpus.root).as_posix() for p in plan.waivers)
                erasure.erase(corpus, erasure.Erasure(tuple(plan.cases), rel), steps)
    _report(corpus, plan, options, out)
    return 1 if plan.other_key else 0


def _plan(corpus: Corpus, ids: list[str], wanted: list[str], key_id: str) -> Plan:
    # every directory under cases/ is searched, even one whose name is no valid id
    cases = [c for c in ids if _case_holds(corpus.cases_dir / c, wanted)]
    other = [
        c for c in ids if c not in cases and _key_id(corpus.cases_dir / c) not in (None, key_id)
    ]
    waivers = [p for p in corpus.waiver_paths() if _waiver_case(p) in cases]
    return Plan(cases, waivers, other)


def _key_id(case_dir: Path) -> str | None:
    """The key id a case's trace was redacted with (None if it records none)."""
    try:
        data = files.read_yaml(case_dir / "trace.yaml")
    except InputError:
        return None
    record = data.get("redaction") if isinstance(data, dict) else None
    return str(record["key_id"]) if isinstance(record, dict) and record.get("key_id") else None


def _case_holds(case_dir: Path, wanted: list[str]) -> bool:
    return any(_file_holds(path, wanted) for path in sorted(case_dir.rglob("*.y*ml")))


def _file_holds(path: Path, wanted: list[str]) -> bool:
    raw = files.read_bytes(path)
    # The raw text covers comments; the parsed document covers escapes and folded lines.
    if redact.holds(_text(raw), wanted):
        return True
    try:
        return redact.holds(files.parse_yaml(raw, path), wanted)
    except InputError:
        return False


def _text(raw: bytes) -> str:
    """The file as text: a UTF-16/32 file (a finding for validate) is still searched."""
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            return raw.decode(codec, "replace")
    return raw.decode("utf-8", "replace")


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _waiver_case(path: Path) -> str | None:
    try:
        data = files.read_yaml(path)
    except InputError:
        return None
    return str(data.get("case")) if isinstance(data, dict) and data.get("case") else None


def _report(corpus: Corpus, plan: Plan, options: ForgetOptions, out: TextIO) -> None:
    if options.output == "json":
        doc = {
            "dry_run": options.dry_run,
            "cases": plan.cases,
            "waivers": [str(p.relative_to(corpus.root)) for p in plan.waivers],
            "other_key": plan.other_key,
        }
        out.write(json.dumps(doc, indent=2) + "\n")
        return
    for case_id in plan.other_key:
        out.write(f"cannot search case {case_id}: redacted under another key; re-add it\n")
    verb = "would remove" if options.dry_run else "removed"
    for case_id in plan.cases:
        out.write(f"{verb} case {case_id}\n")
    for waiver in plan.waivers:
        out.write(f"{verb} waiver {waiver.relative_to(corpus.root)}\n")
    if plan.other_key:
        out.write(_unsearched(plan) + "\n")
    elif not plan.cases:
        out.write("no case holds a pseudonym of this value\n")
    if plan.cases and not options.dry_run:
        out.write(
            "commit the removal; older commits hold only pseudonyms, which cannot be linked "
            "to the value without the key\n"
        )


def _unsearched(plan: Plan) -> str:
    """The summary when some cases could not be searched: the value may remain in them."""
    count = len(plan.other_key)
    cases = f"{count} case{'' if count == 1 else 's'}"
    found = "erasure incomplete" if plan.cases else "no case searched holds a pseudonym of it"
    return (
        f"{found}, but {cases} could not be searched (redacted under another key) and may still "
        "hold the value; rerun `corpus forget` under the key they were redacted with, or "
        "remove them"
    )
