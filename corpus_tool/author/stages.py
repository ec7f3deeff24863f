"""The values `corpus add` passes from stage to stage (author.plan), each frozen, each the
next shape of one run on its way to a case: Imported -> Placed -> Sliced -> Redacted ->
Checked -> Assembled -> Planned."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus_tool.ingest.imported import Imported


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
    select: str | None = None
    all_runs: bool = False
    keep_going: bool = False
    tools_log: Path | None = None
    minimize: bool = False
    timeout_s: float | None = None
    """--timeout: the limit of one replay while minimizing (None: replay.timeout_s, else 60 s)."""


@dataclass(frozen=True)
class Incident:
    """An incident file read and sniffed: the runs the command line chose, the file's hash."""

    path: Path
    sha256: str
    runs: tuple[Imported, ...]


@dataclass(frozen=True)
class Placed:
    """A run and the case it becomes: the id and the directory (free, or taken and --force)."""

    run: Imported
    case_id: str
    target: Path


@dataclass(frozen=True)
class Sliced:
    """The run's events in --start/--end (all without either); seqs stay the incident's."""

    placed: Placed
    body: dict[str, Any]


@dataclass(frozen=True)
class Redacted:
    """The sliced body with every detected value pseudonymised and its `redaction` record."""

    placed: Placed
    body: dict[str, Any]


@dataclass(frozen=True)
class Checked:
    """The redacted body and what the recording lacks (`incomplete`); with --allow-incomplete
    the body is marked `missing` where the schema asks for a value the source did not hold."""

    placed: Placed
    body: dict[str, Any]
    incomplete: list[str]


@dataclass(frozen=True)
class Assembled:
    """trace.yaml's document: the checked body with the id and source block (ids redacted too);
    schema-checked and in the model's key order, unless the run is to be refused as incomplete."""

    checked: Checked
    doc: dict[str, Any]


@dataclass(frozen=True)
class Planned:
    """A case checked and ready to be written."""

    case_id: str
    target: Path
    doc: dict[str, Any]
    expected: str
    incomplete: list[str]
    label: str | None
    minimized: dict[str, Any] | None = None
    hint: str | None = None  # how to complete an incomplete run (Imported.hint)
    keeps_expected: bool = False  # --force over a case: its reviewed expected.yaml stays
    event_count: int | None = None
    """The events written, when `doc` holds none of them (a streamed case: author.streamed)."""

    @property
    def events(self) -> int:
        """How many events the case's trace holds."""
        return len(self.doc["events"]) if self.event_count is None else self.event_count
