"""The user's git dir kept as it was while the gate runs other revisions' agent code.

An agent replayed by the gate is code under review. The files of a git dir that run code or
redirect git (config and its includes' anchors, hooks, attributes, alternates, refs) are read
before the first replay; after the last (and on every way out: an error, Ctrl-C, SIGTERM) they
are read again, anything changed is put back byte for byte (with its mode), and the gate stops
with one line naming what the change under review tried to modify. The worker's read-only
binds are the first defence; this one holds where they are missing or fail.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from corpus_tool.errors import CorpusError

FILES = (
    "config",
    "config.worktree",
    "HEAD",
    "commondir",
    "packed-refs",
    "info/attributes",
    "info/grafts",
    "objects/info/alternates",
)
"""Single files of a git dir that configure git, run code through it or redirect it."""
TREES = ("hooks", "refs", "corpus-tool")
"""Directories whose every entry is watched (hooks: any file git may run; refs: what names
which commit; corpus-tool: the `affected` cache, saved before any replay, which decides what
the next gate replays)."""
SAFE = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.untrackedCache=false",
    "gc.auto=0",
    "maintenance.auto=false",
)
"""Settings given on the command line of every git command the gate runs after agent code
ran: whatever the repository's config says, git starts no fsmonitor, hook or maintenance."""


def safe_args() -> tuple[str, ...]:
    """`-c NAME=VALUE` for each of SAFE, to put before a git subcommand."""
    return tuple(arg for setting in SAFE for arg in ("-c", setting))


class GitDirChanged(CorpusError):
    """Agent code the gate replayed changed the user's git dir; it was put back."""


@dataclass(frozen=True)
class WatchedPath:
    """One watched path as found: a file (its digest, and its bytes when kept to restore), a
    link (its target), a directory, or anything else (a FIFO: never opened)."""

    kind: str  # file | link | dir | other
    mode: int
    digest: bytes = b""
    data: bytes = field(default=b"", compare=False)


Snapshot = Mapping[Path, WatchedPath]


def git_dirs(git_dir: Path, common_dir: Path) -> tuple[Path, ...]:
    """The repository's common git dir, and its own git dir when it is a linked worktree."""
    first = common_dir.resolve()
    second = git_dir.resolve()
    return (first,) if second == first else (first, second)


def take(roots: Iterable[Path], keep: bool = True) -> dict[Path, WatchedPath]:
    """Every watched path under each git dir, as it is now; `keep`: with the files' bytes
    (to restore them), else only their digests (to compare: what an agent planted, however
    large, is never held in memory)."""
    found: dict[Path, WatchedPath] = {}
    for root in roots:
        for place in _watched(root):
            _add(place, found, keep)
    return found


def _watched(root: Path) -> Iterator[Path]:
    """The watched paths of a git dir, its linked worktrees' and its submodules' git dirs."""
    for git_dir in (root, *_worktrees(root), *_submodules(root / "modules")):
        yield from (git_dir / name for name in FILES)
        yield from (git_dir / name for name in TREES)


def _worktrees(root: Path) -> list[Path]:
    with contextlib.suppress(OSError):
        return sorted(p for p in (root / "worktrees").iterdir() if _is_dir(p))
    return []


def _submodules(modules: Path) -> list[Path]:
    """Submodule git dirs under `modules/` (names may hold slashes; nested ones included)."""
    if not _is_dir(modules):
        return []
    found: list[Path] = []
    with contextlib.suppress(OSError):
        for place in sorted(modules.iterdir()):
            if not _is_dir(place):
                continue
            if (place / "HEAD").exists():
                found += [place, *_submodules(place / "modules")]
            else:
                found += _submodules(place)
    return found


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _add(place: Path, found: dict[Path, WatchedPath], keep: bool) -> None:
    """`place` (never followed if a link) and, for a directory, all it holds."""
    try:
        info = os.lstat(place)
    except FileNotFoundError:
        return
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        target = os.fsencode(os.readlink(place))
        found[place] = WatchedPath("link", mode, target, target)
    elif stat.S_ISDIR(info.st_mode):
        found[place] = WatchedPath("dir", mode)
        for child in sorted(place.iterdir()):
            _add(child, found, keep)
    elif stat.S_ISREG(info.st_mode):
        digest, data = _read(place, keep)
        found[place] = WatchedPath("file", mode, digest, data)
    else:
        found[place] = WatchedPath("other", mode)


def _read(place: Path, keep: bool) -> tuple[bytes, bytes]:
    """The file's sha256 and, when kept, its bytes; read in blocks, never through a link."""
    digest, kept = hashlib.sha256(), bytearray()
    descriptor = os.open(place, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(descriptor, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            if keep:
                kept += block
    return digest.digest(), bytes(kept)


def changed(before: Snapshot, after: Snapshot) -> list[Path]:
    """Paths added, removed or changed (bytes, mode, kind), sorted."""
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def restore(before: Snapshot, after: Snapshot) -> None:
    """Put every changed path back as `before` has it: what was added goes, what was changed
    or removed is written again (deepest removals first, shallowest writes first)."""
    differ = changed(before, after)
    for place in sorted(differ, key=lambda p: len(p.parts), reverse=True):
        if place in after:
            _remove(place)
    for place in sorted(differ, key=lambda p: len(p.parts)):
        if place in before:
            _put(place, before[place])


def _remove(place: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        if _is_dir(place):
            shutil.rmtree(place)
        else:
            os.unlink(place)


def _put(place: Path, entry: WatchedPath) -> None:
    if entry.kind == "dir":
        with contextlib.suppress(FileExistsError):
            place.mkdir()
        os.chmod(place, entry.mode)
    elif entry.kind == "other":
        return  # a FIFO or socket the user had: removed by nothing but an agent; not recreated
    elif entry.kind == "link":
        os.symlink(os.fsdecode(entry.data), place)
    else:
        handle, tmp = tempfile.mkstemp(prefix=f".{place.name}.", dir=place.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(entry.data)
            os.chmod(tmp, entry.mode)
            os.replace(tmp, place)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def check(before: Snapshot, roots: tuple[Path, ...]) -> None:
    """Put back what changed since `before`, then stop the gate saying what it was."""
    differ = changed(before, take(roots, keep=False))
    if not differ:
        return
    what = describe(differ, roots)
    try:
        restore(before, take(roots, keep=False))
    except OSError as err:
        left = f"could not put it back ({err.strerror or err}): restore it by hand"
    else:
        rest = changed(before, take(roots, keep=False))
        left = (
            f"could not put back {describe(rest, roots)}: restore it by hand"
            if rest
            else "put back as it was"
        )
    raise GitDirChanged(
        f"the change under review modified the repository's git dir ({what}) while the gate "
        f"replayed its agent; {left}, and review that agent code before running it anywhere",
        roots[0],
    )


def describe(paths: Iterable[Path], roots: Iterable[Path]) -> str:
    """`config, hooks/pre-commit` (relative to its git dir), the first few of them; what a
    changed directory holds is not named again."""
    listed = set(paths)
    shown: list[str] = []
    for path in sorted(p for p in listed if not listed.intersection(p.parents)):
        root = next((r for r in roots if path.is_relative_to(r)), None)
        shown.append(str(path.relative_to(root)) if root is not None else str(path))
    head = ", ".join(shown[:8])
    return head + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
