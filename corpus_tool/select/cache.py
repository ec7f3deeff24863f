"""Facts by git blob id, kept between runs so an unchanged file is never parsed twice.

A blob id names content, so an entry can only go stale when the way facts are read changes:
the file carries a format version for that. The file also carries a SHA-256 of its body; a
file that fails either check (or does not parse, or holds an entry of the wrong shape) is
ignored and rebuilt, never trusted. It lives outside the tracked tree (see
Repository.cache_dir) and is replaced atomically.

Every failure of the cache means "rebuild", never "stop": a file that is not a regular file, is
too big, nests too deep or cannot be read starts an empty cache; a place that cannot be written
costs one warning and the next run's parsing. Saves happen under a lock, which also removes the
temporary files of runs killed while saving.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from corpus_tool.errors import BusyError, CorpusError
from corpus_tool.io import files
from corpus_tool.select.facts import ExpectedFacts, TraceFacts, expected_facts, trace_facts

FORMAT = 1
"""Bump when facts.py reads files differently: older caches are then rebuilt."""

FILE_NAME = "affected-facts.json"
LOCK_NAME = f".{FILE_NAME}.lock"
MAX_ENTRIES = 500_000
"""Past this many entries, only those used by the latest run are kept."""

BulkReader = Callable[[list[str]], Mapping[str, bytes]]
"""Blob ids -> their bytes, read together."""
F = TypeVar("F", TraceFacts, ExpectedFacts)


class FactCache:
    """Trace and expected.yaml facts keyed by blob id, loaded from and saved to one file."""

    def __init__(self, path: Path | None, trace: dict[str, Any], expected: dict[str, Any]):
        self.path = path
        self._trace = trace
        self._expected = expected
        self._used: set[str] = set()
        self.hits = 0
        self.parsed = 0

    @classmethod
    def load(cls, directory: Path | None) -> FactCache:
        """The cache in `directory` (None: in memory only); anything suspect starts empty."""
        path = directory / FILE_NAME if directory is not None else None
        body = _verified_body(path) if path is not None else None
        if body is None:
            return cls(path, {}, {})
        return cls(path, body["trace"], body["expected"])

    def traces(self, blobs: Iterable[str], read: BulkReader) -> dict[str, TraceFacts]:
        """Facts of trace.yaml blobs; the missing ones are read in one go and parsed."""
        return self._lookup(self._trace, blobs, read, _decode_trace, trace_facts, _encode_trace)

    def expecteds(self, blobs: Iterable[str], read: BulkReader) -> dict[str, ExpectedFacts]:
        """Facts of expected.yaml blobs, like traces()."""
        return self._lookup(
            self._expected, blobs, read, _decode_expected, expected_facts, _encode_expected
        )

    def _lookup(
        self,
        table: dict[str, Any],
        blobs: Iterable[str],
        read: BulkReader,
        decode: Callable[[Any], F | None],
        parse: Callable[[bytes], F],
        encode: Callable[[F], Any],
    ) -> dict[str, F]:
        found: dict[str, F] = {}
        missing: list[str] = []
        for blob in blobs:
            self._used.add(blob)
            known = decode(table.get(blob, False))
            if known is None:
                missing.append(blob)
            else:
                found[blob] = known
        self.hits += len(found)
        contents = read(missing) if missing else {}
        for blob in missing:
            # A blob git cannot produce is treated like a file that does not parse.
            facts = parse(contents.get(blob, b"\0"))
            table[blob] = encode(facts)
            found[blob] = facts
        self.parsed += len(missing)
        return found

    def save(self) -> str | None:
        """Write the cache back when this run parsed anything; a failure is a warning, not fatal.

        Temporary files that runs killed while saving left behind are removed on the way.

        Returns the warning (None when saved, or when there was nothing to save).
        """
        if self.path is None or not (self.parsed or files.cache_leftovers(self.path)):
            return None
        # A read-only .git or a full disk is no reason to fail: the next run parses again.
        try:
            files.save_cache(self.path, self._text() if self.parsed else None)
        except BusyError:
            return None  # another run is saving what it parsed; this run's facts can wait
        except (OSError, CorpusError) as err:
            why = err.message if isinstance(err, CorpusError) else err.strerror or str(err)
            return f"cannot save the cache in {self.path.parent} ({why}); the next run reparses"
        return None

    def _text(self) -> str:
        """The file: a SHA-256 line, then the JSON body (trimmed to the entries last used)."""
        if len(self._trace) + len(self._expected) > MAX_ENTRIES:
            self._trace = {k: v for k, v in self._trace.items() if k in self._used}
            self._expected = {k: v for k, v in self._expected.items() if k in self._used}
        return files.checksummed_text(FORMAT, {"trace": self._trace, "expected": self._expected})

    def owns(self, path: Path) -> bool:
        """Is `path` one of the cache's own files (in a CORPUS_CACHE_DIR inside the work tree)?"""
        if self.path is None or path.parent.resolve() != self.path.parent.resolve():
            return False
        return path.name in (FILE_NAME, LOCK_NAME) or _is_tmp(path.name)


def _is_tmp(name: str) -> bool:
    return name.startswith(f".{FILE_NAME}.") and name.endswith(".tmp")


def _verified_body(path: Path) -> dict[str, Any] | None:
    data = files.read_checksummed(path, FORMAT)
    if data is None:
        return None
    if not isinstance(data.get("trace"), dict) or not isinstance(data.get("expected"), dict):
        return None
    return data


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _encode_trace(facts: TraceFacts) -> Any:
    return [facts.events, list(facts.tools)] if facts.readable else None


def _encode_expected(facts: ExpectedFacts) -> Any:
    return [facts.tier, list(facts.tags)] if facts.readable else None


def _decode_trace(value: Any) -> TraceFacts | None:
    # False: no entry; None: the file did not parse; anything else must have the right shape.
    if value is None:
        return TraceFacts(readable=False)
    if isinstance(value, list) and len(value) == 2 and _strings(value[1]):
        events = value[0]
        if isinstance(events, int) and not isinstance(events, bool) and events >= 0:
            return TraceFacts(tuple(value[1]), events)
    return None


def _decode_expected(value: Any) -> ExpectedFacts | None:
    if value is None:
        return ExpectedFacts(readable=False)
    if isinstance(value, list) and len(value) == 2 and _strings(value[1]):
        tier = value[0]
        if tier is None or isinstance(tier, str):
            return ExpectedFacts(tuple(value[1]), tier)
    return None
