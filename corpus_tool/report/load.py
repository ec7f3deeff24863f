"""Where the report gets a results document: the model's one reader, nothing of its own."""

from __future__ import annotations

from pathlib import Path

from corpus_tool.model.results import Results, read_results


def results(path: Path) -> Results:
    """A results document (`corpus replay|check --results FILE`), schema-checked and typed."""
    return read_results(path)
