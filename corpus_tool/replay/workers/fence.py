"""What a replay worker refuses agent code while a case runs, seen through PEP 578 audit events.

Always: writing into a protected directory (the corpus's repository and its git directories,
mounted read-only as well where namespaces allow), opening a hidden file at all (the redaction
key file, covered by /dev/null as well where namespaces allow) and opening another process's
files under /proc (its environment, memory, open descriptors). Where the network namespace
is missing: starting processes and loading foreign code through ctypes too, because a child
process or a foreign call would not pass the socket guard.

An audit hook sees what Python code does through the standard library, not what a C extension
does behind its back; docs/replay.md says so. Each refusal raises `Refused` where it happens (a
BaseException, so `except Exception` cannot hide it) and is kept, so the case is an error even
when the agent swallows it.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
# audit event -> the positions of its path arguments (each a change to the file system)
_CHANGES = {
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.mkdir": (0,),
    "os.rename": (0, 1),
    "os.link": (0, 1),
    "os.symlink": (1,),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
    "shutil.rmtree": (0,),
}
_PROCESSES = frozenset(
    ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.forkpty")
)
_FOREIGN = frozenset(("ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle"))
_PROC_OTHER = re.compile(r"/proc/(\d+)/")


class Refused(BaseException):
    """Raised in agent code at an operation replay workers do not allow."""


class Fence:
    """An audit hook, inert until `armed`, that refuses and records forbidden operations."""

    def __init__(
        self, protected: tuple[Path, ...], refuse_processes: bool, hidden: tuple[Path, ...] = ()
    ) -> None:
        self.protected = tuple(os.path.realpath(p) for p in protected)
        self.hidden = frozenset(os.path.realpath(p) for p in hidden)
        self.refuse_processes = refuse_processes
        self.attempts: list[str] = []
        self._armed = False

    def install(self) -> None:
        """Add the hook (once per process: audit hooks cannot be removed)."""
        sys.addaudithook(self._hook)

    @contextmanager
    def armed(self) -> Iterator[list[str]]:
        """Refuse inside the block; yields what was refused."""
        self.attempts = []
        self._armed = True
        try:
            yield self.attempts
        finally:
            self._armed = False

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self._armed:
            return
        try:
            what = self._forbidden(event, args)
        except Exception:  # odd arguments: not ours to judge
            return
        if what:
            self.attempts.append(what)
            raise Refused(f"replay refused it: {what}")

    def _forbidden(self, event: str, args: tuple[Any, ...]) -> str | None:
        if event == "open":
            return self._open(args)
        if event in _CHANGES:
            inside = [self._inside(args[i]) for i in _CHANGES[event] if i < len(args)]
            hit = next((p for p in inside if p), None)
            return f"{event} {hit}" if hit else None
        if self.refuse_processes and event in _PROCESSES:
            return f"{event} {_short(args)} (no subprocesses without a network namespace)"
        if self.refuse_processes and event in _FOREIGN:
            return f"{event} {_short(args)} (no ctypes without a network namespace)"
        return None

    def _open(self, args: tuple[Any, ...]) -> str | None:
        path, flags = args[0], args[2] if len(args) > 2 else 0
        if isinstance(path, int):
            return None
        text = os.fsdecode(path)
        other = _PROC_OTHER.match(text)
        if other and int(other.group(1)) != os.getpid():  # its environment, memory, open files
            return f"opening {text} (another process's files)"
        if self.hidden and _resolved(path) in self.hidden:
            return f"opening {text} (the redaction key file)"
        if isinstance(flags, int) and flags & _WRITE_FLAGS:
            inside = self._inside(path)
            return f"writing {inside}" if inside else None
        return None

    def _inside(self, path: Any) -> str | None:
        """Where the path lies in a protected directory, when it does (caches excepted): the
        path relative to the repository, or a git directory outside it and the path in it."""
        if not self.protected or isinstance(path, int):
            return None
        resolved = _resolved(path)
        if "__pycache__" in Path(resolved).parts:  # the import system's own caches
            return None
        for n, root in enumerate(self.protected):
            if resolved == root or resolved.startswith(root + os.sep):
                inner = os.path.relpath(resolved, root)
                if n == 0:
                    return f"{inner} (inside the corpus's repository)"
                return f"{inner} (inside the repository's git directory {root})"
        return None


def _resolved(path: Any) -> str:
    return os.path.realpath(os.path.join(os.getcwd(), os.fsdecode(path)))


def _short(args: tuple[Any, ...], limit: int = 80) -> str:
    text = repr(args)
    return text if len(text) <= limit else text[: limit - 3] + "..."
