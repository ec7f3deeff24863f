"""Exclusive advisory locks held through a file: who may write a case (or erase) right now.

The lock file is created to take the lock and removed, still locked, on release; a process killed
while holding one leaves the file, but the kernel drops its lock, so the next taker gets it. A
taker that locked a file its previous holder has just removed sees that the path no longer
names what it locked, and tries again.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from corpus_tool.errors import BusyError, InputError

if sys.platform == "win32":  # pragma: no cover - the suite runs on POSIX
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


_ATTEMPTS = 50
"""Retries when the locked file was removed under us (each one means another process won)."""


@contextlib.contextmanager
def exclusive(path: Path, busy: str) -> Iterator[None]:
    """Hold the lock at `path`; BusyError(busy) at once when another process holds it."""
    fd = _acquire(path, busy)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):  # removed while still locked: no taker is fooled
            os.unlink(path)
        os.close(fd)


def is_held(path: Path) -> bool:
    """True when a live process holds the lock at `path` (a stale file is not held)."""
    try:
        fd = os.open(path, os.O_RDWR | _NOFOLLOW)
    except OSError:
        return False
    try:
        return not _try_lock(fd)
    finally:
        os.close(fd)  # closing drops a lock taken just to look


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _acquire(path: Path, busy: str) -> int:
    for _ in range(_ATTEMPTS):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o644)
        except OSError as err:
            raise InputError(
                f"cannot take the write lock ({err.strerror or err}); make the directory "
                "writable and remove anything else at this name",
                path,
            ) from None
        if not _try_lock(fd):
            os.close(fd)
            raise BusyError(busy)
        if _names(fd, path):
            return fd
        os.close(fd)
    raise BusyError(busy)


def _names(fd: int, path: Path) -> bool:
    """Does `path` still name the file we locked (its holder may have removed it meanwhile)?"""
    try:
        now = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)
