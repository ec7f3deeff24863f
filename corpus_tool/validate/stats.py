"""What each case file's stat data said when its bytes were last hashed, so that a warm run
need not read or hash a file that has not changed.

A warm `validate` of 100,000 cases spent most of its time opening, reading and hashing the
200,000 files whose findings it then found in the cache. git answers the same question
("is this file what I hashed?") from the file's stat data (`core.checkStat`), and so does
this table: for each case, the inode, size, modification and change time (in nanoseconds)
of its trace.yaml and expected.yaml, and the SHA-256 of each file's bytes. A case whose two
files, found by `lstat` (no link followed), are regular files with exactly those four values
is taken to hold those bytes; anything else is read and hashed, and its entry written again.

What makes a match trustworthy: a file's change time (`ctime`) is set by the kernel on every
write, rename, `chmod` or `utime`, and cannot be set back by anyone but the clock's owner
(`touch -d` sets the modification time, not this one); a file replaced by another has
another inode or another change time. The racy case, a file changed again within the
timestamp granularity of its last change (git's "racily clean" entry), is closed by writing
only entries whose files' times are older than the run's start by `RACY_NS`: a later change
is stamped later than that, so it never matches. Like the other caches: one file per corpus
root, `<cache dir>/file-stats/<root digest>`, written atomically with mode 0600; read only
when it is a regular file of this user that nobody else may write, with a header naming this
format, marshal's version, the corpus root and a SHA-256 of the body; anything else is an
empty table (every file is read and hashed), never an error.
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import marshal
import os
import stat
import struct
import time
from pathlib import Path

from corpus_tool.errors import CorpusError
from corpus_tool.io import files
from corpus_tool.store.corpus import CASES
from corpus_tool.validate.documents import MAX_BYTES, read_sealed, sealed_header, write_private

FORMAT = 1
"""Bump when entries are written differently: older tables are then ignored."""
DIRECTORY = "file-stats"
MAGIC = b"corpus-tool file-stats"
RACY_NS = 2_000_000_000
"""A file changed less than this before the run started is not entered: a change as late as
the run itself may carry a time no later than an earlier one (coarse file-system clocks
tick every few milliseconds, FAT's every 2 seconds)."""
SPARE_ENTRIES = 1000
KINDS = ("trace", "expected")
_ENTRY = struct.Struct("<QqqqQqqq32s32s")
"""Per case: inode, size, mtime_ns, ctime_ns of trace.yaml, the same of expected.yaml, then
the SHA-256 of each file's bytes."""


def digest(raw: bytes) -> bytes:
    """The SHA-256 of a file's bytes, as the table and the findings key use it."""
    return hashlib.sha256(raw).digest()


class FileStats:
    """The table of one corpus; `directory` None keeps nothing (nothing is trusted either)."""

    def __init__(self, directory: Path | None, root: Path) -> None:
        """The table kept for the corpus at `root` in `directory`, read when first asked."""
        self._root = os.fspath(root)
        self._cases = os.path.join(self._root, CASES)
        # as validation's reader: a file opened without following a link is plainly inside
        # the corpus only where cases/ is no link
        self._usable = files.NOFOLLOW != 0 and not os.path.islink(self._cases)
        self._name = hashlib.sha256(os.fsencode(self._root)).hexdigest()
        self.path = directory / DIRECTORY / self._name[:32] if directory is not None else None
        self._loaded: dict[str, bytes] | None = None
        self._seen = array.array("q")  # hashes of the cases asked about (a set at the save)
        self._dirty = False
        self._cutoff = time.time_ns() - RACY_NS

    @property
    def _entries(self) -> dict[str, bytes]:
        if self._loaded is None:
            found = _verified(self.path, self._name) if self.path is not None else None
            self._loaded = found if found is not None else {}
        return self._loaded

    def trusted(self, case_id: str) -> dict[str, bytes] | None:
        """The digests of the case's files (by kind) when both are as the table saw them;
        None when either may have changed (or the case, or a file, is a link)."""
        self._seen.append(hash(case_id))
        entry = self._entries.get(case_id)
        if entry is None or not self._usable:
            return None
        folder = f"{self._cases}{os.sep}{case_id}"
        try:
            infos = (
                None
                if stat.S_ISLNK(os.lstat(folder).st_mode)
                else [os.lstat(f"{folder}{os.sep}{kind}.yaml") for kind in KINDS]
            )
        except (OSError, ValueError):
            infos = None
        fields = _ENTRY.unpack(entry)
        if infos is None or any(
            not stat.S_ISREG(info.st_mode)
            or (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            != fields[4 * n : 4 * n + 4]
            for n, info in enumerate(infos)
        ):
            del self._entries[case_id]  # what it vouched for is gone: read the files again
            self._dirty = True
            return None
        return {"trace": fields[8], "expected": fields[9]}

    def record(
        self, case_id: str, infos: dict[str, os.stat_result], digests: dict[str, bytes]
    ) -> None:
        """Enter what a read of both files found (`infos`: each file's `fstat` before its
        read); a file changed too recently to tell a later change from it is not entered.
        Validation enters a case once its findings are in the cache (the run after the one that
        checked it), so a cold run of a large corpus does not hold the table as well."""
        self._seen.append(hash(case_id))
        cutoff = self._cutoff
        racy = any(i.st_mtime_ns >= cutoff or i.st_ctime_ns >= cutoff for i in infos.values())
        if racy:
            if self._entries.pop(case_id, None) is not None:
                self._dirty = True
            return
        values: list[int | bytes] = []
        for kind in KINDS:
            info = infos[kind]
            values += [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]
        try:
            entry = _ENTRY.pack(*values, digests["trace"], digests["expected"])
        except struct.error:  # a time before 1678 (nanoseconds past 64 bits): not entered
            if self._entries.pop(case_id, None) is not None:
                self._dirty = True
            return
        if self._entries.get(case_id) != entry:
            self._entries[case_id] = entry
            self._dirty = True

    def save(self) -> None:
        """Write the table when this run changed it; entries of cases no run asks for any
        more go once they outnumber the ones asked for (a place that cannot be written is
        no error: the next run reads and hashes the files)."""
        if self.path is None:
            return
        if self._loaded is None:
            return  # never asked
        seen = set(self._seen)
        if len(self._loaded) > 2 * len(seen) + SPARE_ENTRIES:
            self._loaded = {k: v for k, v in self._loaded.items() if hash(k) in seen}
            self._dirty = True
        del seen  # gone before the body is made: the two were most of a save's peak
        if not self._dirty:
            return
        body = marshal.dumps(self._loaded)
        # under the save lock, which also removes what killed saves left; another run
        # saving now is no error (its table is as good)
        with contextlib.suppress(OSError, CorpusError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with files.saving(self.path):
                write_private(self.path, sealed_header(MAGIC, FORMAT, self._name, body), body)
        self._dirty = False


def _verified(path: Path, name: str) -> dict[str, bytes] | None:
    entries = read_sealed(path, MAGIC, FORMAT, name, MAX_BYTES)
    if not isinstance(entries, dict):
        return None
    size = _ENTRY.size
    for case_id, entry in entries.items():
        if not isinstance(case_id, str) or not isinstance(entry, bytes) or len(entry) != size:
            return None
    return entries
