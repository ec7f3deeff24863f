"""Assembling a new case's trace.yaml document from an imported run: id, slice, source block."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from corpus_tool.errors import UsageError
from corpus_tool.ingest.imported import Imported

SCHEMA_VERSION = 1


def derive_case_id(imported: Imported, incident: Path, prefix: str = "") -> str:
    """A case id from the trace id (or label, or file name): lower-case, safe characters."""
    raw = prefix + (imported.label or imported.trace_id or incident.stem)
    cleaned = re.sub(r"[^a-z0-9._-]+", "-", raw.lower()).strip("-._").replace("..", ".")
    if len(cleaned) > 80:  # cut, with a suffix of the whole name: long ids stay distinct
        digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]
        cleaned = f"{cleaned[:71].rstrip('-._')}-{digest}"
    return cleaned or "case"


def slice_body(body: dict[str, Any], start: int | None, end: int | None) -> dict[str, Any]:
    """Keep the events whose seq lies in [start, end]; seq numbers stay the incident's own."""
    if start is None and end is None:
        return body
    low = start if start is not None else -(2**63)
    high = end if end is not None else 2**63
    if low > high:
        raise UsageError(f"--start {start} is after --end {end}")
    kept = [e for e in body["events"] if low <= e["seq"] <= high]
    if not kept:
        raise UsageError(f"no event has a seq between {start} and {end}")
    terminal = body["terminal"]
    if "seq" in terminal and not low <= terminal["seq"] <= high:
        terminal = {"status": "unknown", "output": None}
    return {**body, "events": kept, "terminal": terminal}


def assemble(
    case_id: str,
    imported: Imported,
    body: dict[str, Any],
    sha256: str,
    cut: tuple[int | None, int | None] = (None, None),
) -> dict[str, Any]:
    """The trace.yaml document, keys in reading order."""
    source: dict[str, Any] = {"format": imported.format, "trace_id": imported.trace_id}
    if imported.session_id is not None:
        source["session_id"] = imported.session_id
    source["sha256"] = sha256
    if cut != (None, None):
        events = body["events"]
        source["slice"] = {
            "start": cut[0] if cut[0] is not None else events[0]["seq"],
            "end": cut[1] if cut[1] is not None else events[-1]["seq"],
        }
    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "id": case_id, "source": source}
    for key in ("recorded", "input", "events", "terminal", "redaction", "extra"):
        if key in body:
            doc[key] = body[key]
    return doc
