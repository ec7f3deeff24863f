"""Importers: one module per incident format, each turning parsed input into trace bodies.

A trace body is trace.yaml without `schema_version`, `id`, `source` and `redaction`:
`{recorded, input, events, terminal, extra?}`, as schemas/trace.schema.json describes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from corpus_tool.errors import InputError


@dataclass(frozen=True)
class Imported:
    """One run read from an incident file (a file may hold many, e.g. benchmark results)."""

    format: str
    body: dict[str, Any]
    trace_id: str | None = None
    session_id: str | None = None
    label: str | None = None


class Importer(Protocol):
    """An incident format: recognise it, read it."""

    name: str

    def sniff(self, data: Any, path: Path) -> bool:
        """Whether `data` (parsed from `path`) looks like this format."""

    def load(self, data: Any, path: Path) -> list[Imported]:
        """Every run the file holds, or an InputError saying what is wrong."""


def registry() -> dict[str, Importer]:
    """Importers by name, in sniffing order (most specific first)."""
    from corpus_tool.ingest import native

    importers: list[Importer] = [native.IMPORTER]
    return {imp.name: imp for imp in importers}


def pick(data: Any, path: Path, name: str = "auto") -> Importer:
    """The importer named, or the first whose sniff recognises the data."""
    importers = registry()
    if name != "auto":
        if name not in importers:
            raise InputError(f"unknown format {name!r}; known: auto, {', '.join(importers)}", path)
        return importers[name]
    for importer in importers.values():
        if importer.sniff(data, path):
            return importer
    raise InputError(
        f"not a recognised incident (tried: {', '.join(importers)}); "
        "check the file is a trace export or pass --format NAME",
        path,
    )
