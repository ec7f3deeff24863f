"""The findings of each case, kept between runs of `corpus validate` and `corpus check`.

A case's findings are a function of its two files' bytes, its id and the run's context: the
tool (version, code, schemas, the libraries whose messages findings quote), corpus.yaml, the
redaction key's id and the allow-list. An entry is keyed by a SHA-256 of all of that, so an
unchanged case costs a lookup and anything else is a miss: nothing is ever "invalidated", a
changed input simply names another entry.

The file lives outside the tracked tree (the git dir of the worktree, like the `affected`
cache, or $CORPUS_CACHE_DIR) and carries a format version and a SHA-256 of its body. A file
that fails either check, does not parse, or holds an entry of the wrong shape is ignored and
rebuilt, never trusted; a file that cannot be written is no error. Every failure means
"validate again", never "stop".
"""

from __future__ import annotations

import array
import contextlib
import functools
import hashlib
import importlib.util
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus_tool.errors import CorpusError
from corpus_tool.io import files, migrations, schema
from corpus_tool.model.findings import Finding
from corpus_tool.validate import stats
from corpus_tool.validate.documents import DocumentCache
from corpus_tool.version import __version__

FORMAT = 2
"""Bump when entries are read differently: older files are then ignored. 2: each distinct
entry is written once (`values`), each key names its entry by position (`entries`)."""
FILE_NAME = "validate-findings.json"
SPARE_ENTRIES = 1000
"""Entries kept beyond those a run used (other branches, other keys), past twice as many used.
"As many used" is the most any run of this cache used: a hook's run of one file keeps the
entries of the whole corpus."""
LIBRARIES = ("yaml", "_yaml", "jsonschema", "jsonschema_rs")
"""Whose behaviour findings depend on: parse errors, schema messages, the compiled check."""


@dataclass(frozen=True)
class Entry:
    """What validation found in one case: findings (paths relative to the corpus root), the
    kinds of its files that fit their schema (replay takes those without checking again), and
    the redaction key id its trace records (the whole-corpus key rules count every case)."""

    findings: tuple[Finding, ...]
    valid: tuple[str, ...]
    key_id: str | None = None


class FindingsCache:
    """Entries by key, loaded from and saved to one file; beside them, under the same keys,
    the parsed documents of each case (`documents`, one file per entry)."""

    def __init__(
        self,
        path: Path | None,
        entries: dict[str, Any],
        most_used: int = 0,
        values: list[Any] | None = None,
    ) -> None:
        """`entries`: key -> position in `values`, the distinct entries as _encode writes them
        (most cases of a corpus have the same: no finding, both files valid, one key id, so a
        corpus of 100,000 cases holds a few hundred values and 100,000 small integers)."""
        self.path = path
        self._most_used = most_used
        self.documents = DocumentCache(path.parent if path is not None else None)
        self._entries = entries
        self._values = values if values is not None else []
        self._decoded: dict[int, Entry | None] = {}  # position -> entry, decoded once
        self._positions: dict[str, int] | None = None  # a value's JSON -> its position (put)
        # the hashes of the keys this run asked for (for the pruning rule), not the keys: a
        # key is a new string of 64 hex digits a case, kept to the end of the run otherwise;
        # an unused entry whose hash equals a used one's is only kept a while longer. An
        # array, made a set at the save: 8 bytes a case, not the 77 of an int in a set
        self._used = array.array("q")
        self._tables: dict[Path, stats.FileStats] = {}
        self.added = 0

    @classmethod
    def load(cls, directory: Path | None) -> FindingsCache:
        """The cache in `directory` (None: in memory only); anything suspect starts empty."""
        path = directory / FILE_NAME if directory is not None else None
        body = _verified_body(path) if path is not None else None
        if body is None:
            return cls(path, {})
        most = body.get("most_used")
        most = most if isinstance(most, int) and not isinstance(most, bool) else 0
        return cls(path, body["entries"], max(most, 0), body["values"])

    def get(self, key: str) -> Entry | None:
        """The entry under `key`, if there is one of the right shape."""
        self._used.append(hash(key))
        return self._entry(self._entries.get(key))

    def _entry(self, position: Any) -> Entry | None:
        if position.__class__ is not int or not 0 <= position < len(self._values):
            return None  # no entry, or not a position (a bool is no int here)
        if position not in self._decoded:
            self._decoded[position] = _decode(self._values[position])
        return self._decoded[position]

    def put(self, key: str, entry: Entry) -> None:
        """Remember an entry (written by save())."""
        self._used.append(hash(key))
        value = _encode(entry)
        if self._positions is None:
            self._positions = {_json(v): n for n, v in enumerate(self._values)}
        position = self._positions.setdefault(_json(value), len(self._values))
        if position == len(self._values):
            self._values.append(value)
        self._entries[key] = position
        self.added += 1

    def file_stats(self, root: Path) -> stats.FileStats:
        """The file-stats table of the corpus at `root` (kept beside this cache)."""
        if root not in self._tables:
            directory = self.path.parent if self.path is not None else None
            self._tables[root] = stats.FileStats(directory, root)
        return self._tables[root]

    def save(self) -> None:
        """Write the file back when this run added anything (removing what saves killed
        midway left), and each file-stats table this run changed; a failure, or another run
        saving at the same time, is not an error."""
        for table in self._tables.values():
            table.save()
        if self.path is None or not (self.added or files.cache_leftovers(self.path)):
            return
        used = set(self._used)
        most = max(len(used), self._most_used)
        if len(self._entries) > 2 * most + SPARE_ENTRIES:
            dropped = [k for k in self._entries if hash(k) not in used]
            self._entries = {k: v for k, v in self._entries.items() if hash(k) in used}
            self.documents.remove(dropped)
        entries, values = self._compacted()
        body = {"entries": entries, "values": values, "most_used": most}
        text = files.checksummed_text(FORMAT, body) if self.added else None
        # A read-only .git or a full disk is no reason to fail: the next run validates again.
        with contextlib.suppress(OSError, CorpusError):
            files.save_cache(self.path, text)

    def _compacted(self) -> tuple[dict[str, int], list[Any]]:
        """The entries and the values they name, those no entry names left out."""
        kept: dict[int, int] = {}
        values: list[Any] = []
        entries: dict[str, int] = {}
        for key, position in self._entries.items():
            if self._entry(position) is None:
                continue  # of no shape this tool reads: dropped
            if position not in kept:
                kept[position] = len(values)
                values.append(self._values[position])
            entries[key] = kept[position]
        return entries, values


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def case_key(context: str, case_id: str, digests: Iterable[bytes]) -> str:
    """The key of a case's entry: the run's context, the case id, the SHA-256 of each of its
    files' bytes (`stats.digest`, which the file-stats table keeps: a file it vouches for is
    not read again)."""
    key = hashlib.sha256(f"{context}\0{case_id}".encode())
    for file_digest in digests:
        key.update(file_digest)
    return key.hexdigest()


def read_key(case_id: str, kind: str, raw: bytes) -> str:
    """The document-cache key of one case file read and schema-checked outside a validation
    run (`corpus regrade`): what that answer depends on, the tool (its schemas), the input
    limit, the case, the kind and the bytes; never a findings key (no "read" in those)."""
    parts = json.dumps(["read", FORMAT, tool_fingerprint(), files.input_limit(), kind])
    return case_key(_digest(parts), case_id, [stats.digest(raw)])


def context_key(config: bytes, guard: str) -> str:
    """What every finding of a run depends on besides the case: the tool, corpus.yaml, the
    redaction guard's key id and allow-list (`guard`), the input size limit, the
    migrations registered (an old schema_version's finding says whether `corpus migrate` helps)."""
    shipped = [[m.kind, m.version] for m in migrations.REGISTERED.migrations]
    parts = [FORMAT, tool_fingerprint(), _digest_bytes(config), guard, files.input_limit(), shipped]
    return _digest(json.dumps(parts))


@functools.cache
def tool_fingerprint() -> str:
    """This corpus-tool: its version, the size and time of each of its files and schemas (an
    edited checkout is another tool), and the same of the libraries findings quote (found, not
    imported: importing jsonschema costs more than a warm run)."""
    package = Path(__file__).resolve().parents[1]  # corpus_tool/
    seen = [__version__]
    # the schemas too where they are not inside it (a source checkout keeps them at its top)
    schemas = schema.schema_dir()
    places = [package] if schemas.is_relative_to(package) else [package, schemas]
    for place in places:
        for root, dirs, names in os.walk(place):
            dirs.sort()
            for name in sorted(names):
                if name.endswith((".py", ".json")):
                    info = os.stat(os.path.join(root, name))
                    seen.append(f"{os.path.relpath(root, package)}/{name}:{info.st_size}:")
                    seen[-1] += str(info.st_mtime_ns)
    seen.extend(_library(name) for name in LIBRARIES)
    return _digest("\n".join(seen))


def _library(module: str) -> str:
    try:
        spec = importlib.util.find_spec(module)
        info = os.stat(spec.origin) if spec is not None and spec.origin else None
    except (ImportError, ValueError, OSError):
        info = None
    if info is None:
        return f"{module} absent"
    return f"{module} {spec.origin}:{info.st_size}:{info.st_mtime_ns}"  # type: ignore[union-attr]


def cache_dir(root: Path, environ: Mapping[str, str]) -> Path | None:
    """Where the cache of the corpus at `root` lives: $CORPUS_CACHE_DIR, else the git dir of
    its worktree (untracked by construction), else the user's cache directory."""
    override = environ.get("CORPUS_CACHE_DIR")
    if override:
        return Path(override)
    git_dir = _git_dir(root)
    if git_dir is not None:
        return git_dir / "corpus-tool"
    home = environ.get("XDG_CACHE_HOME") or environ.get("HOME")
    if not home:
        return None
    base = Path(home) if environ.get("XDG_CACHE_HOME") else Path(home) / ".cache"
    return base / "corpus-tool" / _digest(str(root))[:16]


def _git_dir(root: Path) -> Path | None:
    """The git dir of the worktree holding `root`: `.git`, or the one a `.git` file names."""
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():  # a linked worktree or a submodule: "gitdir: <path>"
            with contextlib.suppress(OSError, UnicodeDecodeError):
                text = dot_git.read_text(encoding="utf-8").strip()
                if text.startswith("gitdir:"):
                    return (folder / text.removeprefix("gitdir:").strip()).resolve()
            return None
    return None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _verified_entries(path: Path) -> dict[str, Any] | None:
    body = _verified_body(path)
    return body["entries"] if body is not None else None


def _verified_body(path: Path) -> dict[str, Any] | None:
    data = files.read_checksummed(path, FORMAT)
    if data is None or not isinstance(data.get("entries"), dict):
        return None
    return data if isinstance(data.get("values"), list) else None


def _encode(entry: Entry) -> Any:
    rows = [[f.path, f.line, f.json_path, f.rule, f.message] for f in entry.findings]
    return [rows, list(entry.valid), entry.key_id]


def _decode(value: Any) -> Entry | None:
    """An entry, or None for anything not of the exact shape _encode writes."""
    if not isinstance(value, list) or len(value) != 3:
        return None
    rows, valid, key_id = value
    if not isinstance(rows, list) or not _strings(valid):
        return None
    if key_id is not None and not isinstance(key_id, str):
        return None
    findings = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 5 and _strings([*row[:1], *row[2:]])):
            return None
        line = row[1]
        if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
            return None
        findings.append(Finding(row[0], line, row[2], row[3], row[4]))
    return Entry(tuple(findings), tuple(valid), key_id)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
