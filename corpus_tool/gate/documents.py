"""Results documents read back (`corpus replay|check --results FILE`): what `gate`, `status`
and `waivers` compare and count. Kept apart from sides.py so that the commands that only read
a document never import the replay engine and the graders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.io import files, schema


def read_results(path: Path) -> dict[str, Any]:
    """A results document (`corpus replay|check --results FILE`), schema-checked."""
    doc = files.parse_json(files.read_bytes(path), path)
    problem = schema.first_problem("results", doc, plain=True)  # JSON: the compiled check
    if problem:
        raise InputError(
            f"not a results document ({problem}); write one with `corpus replay --results FILE`",
            path,
        )
    if not isinstance(doc, dict):  # the schema says object; this tells mypy
        raise InputError("not a results document", path)
    _once_each(doc["cases"], path)
    return doc


def _once_each(cases: list[dict[str, Any]], path: Path) -> None:
    """Every case listed once: a second entry (failed, then passed) would let the later one
    decide, so a document that lists a case twice is refused rather than read either way."""
    seen: set[str] = set()
    for entry in cases:
        case = str(entry["case"])
        if case in seen:
            raise InputError(
                f"lists case {case!r} more than once; write the document again with "
                "`corpus replay --results FILE`",
                path,
            )
        seen.add(case)
