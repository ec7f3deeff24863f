"""The parsed documents of each case, kept beside its cached findings under the same key.

A warm `corpus check` (and the `gate` and pytest runs built on it) needs each case's parsed
trace.yaml and expected.yaml for replay; with the findings cached, parsing them was most of
what such a run did. An entry holds the documents of one case's schema-valid files, written
with `marshal`, which loads plain values (str, int, float, bool, None, list, dict, in their
order) about ten times faster than PyYAML's C loader and, unlike pickle, runs no code while it
loads, whatever the file holds. A document marshal cannot hold (a YAML timestamp, a set) is not
kept: that case is parsed every run, as before.

The key is the findings entry's (validate/cache.py): a SHA-256 of the files' bytes, the case
id and the run's context (the tool's files, PyYAML's, corpus.yaml, ...), so a changed file or
another parser names another entry. An entry is one file, `documents/<2 hex>/<62 hex>`, so a
run reads only the cases it replays and memory stays flat however large the corpus. What
guards it, checked on every read: a regular file (no link followed, a FIFO never blocks),
owned by this user and writable by nobody else, under the size limit; a header naming this
format, marshal's version and the entry's own key (an entry copied under another name is
refused), and a SHA-256 of the body; a body that loads into a mapping of kinds to mappings.
Anything else is a miss: the case is parsed and the entry written again. A place that cannot be
written is no error (the first failure stops the run's writes).
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from corpus_tool.io import files

FORMAT = 1
"""Bump when entries are written differently: older entries are then refused."""
DIRECTORY = "documents"
MAGIC = b"corpus-tool documents"
MAX_BYTES = 256 * 1024 * 1024
"""An entry bigger than this is refused unread (the input limit is far below it)."""
KINDS = frozenset({"trace", "expected"})


class DocumentCache:
    """Entries under `directory`/documents/; None keeps nothing."""

    def __init__(self, directory: Path | None, deferred: bool = False) -> None:
        self.root = directory / DIRECTORY if directory is not None else None
        self.hits = 0
        self.written = 0
        self._writable = directory is not None
        self._pending: dict[str, bytes] | None = {} if deferred else None
        """`deferred`: entries are held here until `flush()`, so the run writes nothing while
        `corpus gate` watches the git dir (where the cache lives) for what agents change."""

    def get(self, key: str) -> dict[str, Any] | None:
        """The documents under `key` by kind, or None for no entry or a suspect one."""
        if self.root is None:
            return None
        held = self._pending.get(key) if self._pending is not None else None
        found = marshal.loads(held) if held is not None else _verified(self._path(key), key)
        self.hits += found is not None
        return found

    def flush(self) -> None:
        """Write the entries a deferred cache holds (nothing once a write failed)."""
        if self._pending is None:
            return
        pending, self._pending = self._pending, {}
        for key, body in pending.items():
            self._store(key, body)

    def put(self, key: str, documents: Mapping[str, Any]) -> None:
        """Keep the documents (by kind) under `key`; one a marshal cannot hold is not kept."""
        if self.root is None or not self._writable or not documents:
            return
        try:
            body = marshal.dumps(dict(documents))
        except ValueError:  # a date, a set, ...: this case is parsed every run
            return
        if self._pending is not None:
            self._pending[key] = body
        else:
            self._store(key, body)

    def _store(self, key: str, body: bytes) -> None:
        if not self._writable:
            return
        try:
            write_private(self._path(key), sealed_header(MAGIC, FORMAT, key, body), body)
            self.written += 1
        except OSError:  # a read-only .git, a full disk: the next run parses again
            self._writable = False

    def remove(self, keys: Iterable[str]) -> None:
        """Drop the entries of keys the findings cache let go."""
        if self.root is None:
            return
        for key in keys:
            with contextlib.suppress(OSError):
                self._path(key).unlink()

    def _path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / key[2:]


def sealed_header(magic: bytes, version: int, name: str, body: bytes | memoryview) -> bytes:
    """The first line of a cache file with a marshal body: what it is (`magic`, its format
    `version`, marshal's), which entry it is (`name`: an entry copied under another name is
    refused) and a SHA-256 of the body."""
    digest = hashlib.sha256(body).hexdigest()
    return b"%s %d %d %s %s\n" % (magic, version, marshal.version, name.encode(), digest.encode())


def read_sealed(path: Path, magic: bytes, version: int, name: str, limit: int) -> Any:
    """The marshal value of a file `sealed_header` began, or None: not a regular file of this
    user that nobody else may write (no link followed, a FIFO never blocks), over `limit`, a
    header that is not this one or a body that does not load (read without copying it)."""
    data = files.read_plain(path, limit, private=True)
    if data is None:
        return None
    end = data.find(b"\n")
    body = memoryview(data)[end + 1 :]
    if end < 0 or data[: end + 1] != sealed_header(magic, version, name, body):
        return None
    try:
        return marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return None


def write_private(path: Path, *parts: bytes) -> None:
    """Write the parts, atomically, readable and writable by this user only (in 0700
    directories); parts, not one joined copy: a file-stats table is megabytes."""
    path.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                out.write(part)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _verified(path: Path, key: str) -> dict[str, Any] | None:
    documents = read_sealed(path, MAGIC, FORMAT, key, MAX_BYTES)
    if not isinstance(documents, dict) or not documents or not set(documents) <= KINDS:
        return None
    if not all(isinstance(doc, dict) for doc in documents.values()):
        return None
    return documents
