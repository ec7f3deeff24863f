"""A native incident read one event at a time: what `corpus add` streams a long run with.

The events come in trace form, in order, with reused call ids renamed (call_ids.CallIds), as
`formats.native` converts them in a whole read; what the run needs of all of them (the models,
the `final` event) is kept as they pass. Errors are the whole read's, in its order: a JSON
syntax error anywhere (`NotStreamed`: the caller reads the file whole, whose parse says it)
before an event's, an event's before those the top-level keys raise.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.body import models_of
from corpus_tool.ingest.call_ids import CallIds
from corpus_tool.ingest.formats import native
from corpus_tool.ingest.imported import SHAPE_ERRORS, Imported, shape_error
from corpus_tool.io.json_stream import NotStreamed, StreamedObject

__all__ = ["NativeRun", "NotStreamed"]


class NativeRun:
    """One native incident file, read once: `events()`, then `run()` (the body without its
    events). `sniffed`: the format was not named, so a file native's sniff does not
    recognise is not this reader's (NotStreamed at `run()`)."""

    def __init__(self, path: Path, sniffed: bool, limit: int | None = None):
        self.path, self.sniffed = path, sniffed
        self._stream = StreamedObject(path, "events", limit)
        self._ids = CallIds()
        self._models: set[str] = set()
        self._final: dict[str, Any] | None = None
        self._error: InputError | None = None

    def __enter__(self) -> NativeRun:
        self._stream.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stream.__exit__(kind, err, tb)

    @property
    def head(self) -> dict[str, Any]:
        """The top-level keys written before the events (all of them, after `events()`)."""
        return self._stream.fields

    @property
    def sha256(self) -> str:
        """The file's hash, once it has been read to the end."""
        return self._stream.sha256

    def events(self) -> Iterator[dict[str, Any]]:
        """Every event but `final`, in trace form; after the first bad one, none (the rest of
        the file is still read: a syntax error further on is what a whole read reports)."""
        for index, raw in enumerate(self._stream.items()):
            if self._error is not None:
                continue
            try:
                event = native.event_of(raw, index, self.path)
            except InputError as err:
                self._error = err
                continue
            except SHAPE_ERRORS as err:
                self._error = shape_error(native.IMPORTER.name, err, self.path)
                continue
            if event is None:
                self._final = raw
                continue
            self._ids.rename(event)
            self._models.update(models_of([event]))
            yield event

    def run(self) -> Imported:
        """The run, its body holding no events (they were yielded); the whole read's errors."""
        data = self._stream.fields
        if self.sniffed and not ("traceId" in data or "schemaVersion" in data):
            raise NotStreamed("not recognised as native: the whole read decides")
        try:
            native.check_mcp_servers(data.get("mcpServers", {}), self.path)
            if self._error is not None:
                raise self._error
            body = native.body_of(data, [], self._final, self.path, sorted(self._models))
        except SHAPE_ERRORS as err:
            raise shape_error(native.IMPORTER.name, err, self.path) from None
        trace_id, session_id = data.get("traceId"), data.get("sessionId")
        return Imported(
            format=native.IMPORTER.name,
            body=body,
            trace_id=None if trace_id is None else str(trace_id),
            session_id=None if session_id is None else str(session_id),
        )
