"""`corpus add`: ingest one incident as a case (trace.yaml + a drafted expected.yaml)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from corpus_tool import completeness, files, ingest, redact, schema
from corpus_tool.corpus import Corpus, check_case_id
from corpus_tool.errors import IncompleteError, InputError, UsageError
from corpus_tool.expectations import draft
from corpus_tool.trace import assemble, derive_case_id, slice_body


@dataclass(frozen=True)
class AddOptions:
    """What the command line asked of `corpus add`."""

    incident: Path
    case_id: str | None = None
    start: int | None = None
    end: int | None = None
    tier: str = "fast"
    force: bool = False
    allow_incomplete: bool = False
    source_format: str = "auto"
    output: str = "text"


def add(
    corpus: Corpus, options: AddOptions, out: TextIO, environ: Mapping[str, str] | None = None
) -> int:
    """Ingest the incident; on any refusal nothing of the case is written.

    Every value of the trace is redacted with the corpus key (from `environ`, default the
    process environment) before anything is written; without a key nothing is.
    """
    if options.case_id is not None:
        check_case_id(options.case_id)
    key = redact.load_key(corpus.config, corpus.root, os.environ if environ is None else environ)
    raw = files.read_bytes(options.incident)
    data = files.parse_json(raw, options.incident)
    runs = ingest.pick(data, options.incident, options.source_format).load(data, options.incident)
    if len(runs) != 1:
        raise InputError(
            f"the file holds {len(runs)} runs; pick one (see `corpus add --help`)", options.incident
        )
    imported = runs[0]
    case_id = check_case_id(options.case_id or derive_case_id(imported, options.incident))
    target = corpus.case_dir(case_id)
    if target.exists() and not options.force:
        raise UsageError(
            f"case {case_id!r} exists at {target}; pass --force to re-add it, or --id NEW"
        )
    body = _redacted(slice_body(imported.body, options.start, options.end), corpus, key)
    found = [p.message for p in completeness.problems(body)]
    if found and not options.allow_incomplete:
        raise IncompleteError(options.incident, found)
    doc = assemble(
        case_id, imported, body, hashlib.sha256(raw).hexdigest(), (options.start, options.end)
    )
    _redact_source(doc, corpus, key)
    _check_schema(doc, options.incident)
    _write_case(target, doc, draft(case_id, body, options.tier, found), options.force)
    _report(corpus, case_id, doc, found, options.output, out)
    return 0


def _redacted(body: dict[str, Any], corpus: Corpus, key: redact.RedactionKey) -> dict[str, Any]:
    """The body with every detected value pseudonymised and the `redaction` record added."""
    clean, replaced = redact.redact(body, key, _drop_keys(corpus))
    record = {"policy": redact.POLICY, "key_id": key.key_id, "replaced": replaced}
    return {**clean, "redaction": record}


def _redact_source(doc: dict[str, Any], corpus: Corpus, key: redact.RedactionKey) -> None:
    """Trace and session ids are redacted too (an id can embed a phone number or an email)."""
    clean, replaced = redact.redact(doc["source"], key, _drop_keys(corpus))
    doc["source"] = clean
    doc["redaction"]["replaced"] += replaced


def _drop_keys(corpus: Corpus) -> list[str]:
    return [str(name) for name in corpus.setting("redaction", "drop_keys", default=[]) or []]


def _check_schema(doc: dict[str, Any], incident: Path) -> None:
    """An incident whose values do not fit the trace model is refused with the first misfit."""
    problems = schema.errors("trace", doc)
    if problems:
        first = problems[0]
        raise InputError(
            f"cannot be stored: {schema.json_path(first.absolute_path)}: {first.message}", incident
        )


def _write_case(target: Path, trace: dict[str, Any], expected: str, force: bool) -> None:
    """Write the case in one rename; a reviewed expected.yaml (and other files) survive --force."""
    with files.staged_dir(target, replace=force) as tmp:
        if target.exists():
            shutil.copytree(target, tmp, dirs_exist_ok=True)
        (tmp / "trace.yaml").write_text(files.dump_yaml(trace), encoding="utf-8")
        if not (tmp / "expected.yaml").exists():
            (tmp / "expected.yaml").write_text(expected, encoding="utf-8")


def _report(
    corpus: Corpus,
    case_id: str,
    doc: dict[str, Any],
    incomplete: list[str],
    output: str,
    out: TextIO,
) -> None:
    where = corpus.case_dir(case_id)
    summary = {
        "case": case_id,
        "path": str(where),
        "events": len(doc["events"]),
        "status": "known_unknown" if incomplete else "active",
        "incomplete": incomplete,
        "redacted": (doc.get("redaction") or {}).get("replaced", 0),
    }
    if output == "json":
        out.write(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        return
    out.write(f"added case {case_id}: {len(doc['events'])} events -> {where}\n")
    record = doc.get("redaction") or {}
    out.write(f"  redacted {record.get('replaced', 0)} values (key {record.get('key_id')})\n")
    for problem in incomplete:
        out.write(f"  incomplete: {problem}\n")
    out.write(f"  review {where / 'expected.yaml'} (lines marked REVIEW) before committing\n")
