"""What an importer is, and what it yields: the leaf every importer and `corpus add` share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Imported:
    """One run read from an incident file (a file may hold many, e.g. benchmark results).

    `body` is trace.yaml without `schema_version`, `id`, `source` and `redaction`.
    """

    format: str
    body: dict[str, Any]
    trace_id: str | None = None
    session_id: str | None = None
    label: str | None = None
    task_id: str | None = None
    """The benchmark task the run solved, when the file holds many runs (`--select`)."""
    hint: str | None = None
    """How to complete the run when it is incomplete, if the format knows (refusals say it)."""


class Importer(Protocol):
    """An incident format: recognise it, read it."""

    name: str

    def sniff(self, data: Any, path: Path) -> bool:
        """Whether `data` (parsed from `path`) looks like this format."""

    def load(self, data: Any, path: Path) -> list[Imported]:
        """Every run the file holds, or an InputError saying what is wrong."""


@runtime_checkable
class ReadsBytes(Protocol):
    """An importer whose files are not JSON text (a zip archive): it reads its own bytes."""

    def sniff_bytes(self, raw: bytes, path: Path) -> bool:
        """Whether the raw file, which is not one JSON document, looks like this format."""

    def read(self, raw: bytes, path: Path) -> Any:
        """The file's content, parsed, for `sniff` and `load`."""
