"""The one place the report reads a results document: a typed model replaces it in one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.gate.documents import read_results


def results(path: Path) -> dict[str, Any]:
    """A results document (`corpus replay|check --results FILE`), schema-checked."""
    return read_results(path)
