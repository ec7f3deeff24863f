"""Directories written whole: built beside their place, swapped in by renames, under a lock.

For `final` = PARENT/NAME every write holds the lock PARENT/.NAME.lock and moves through named
states, so that at every instant a complete NAME, .NAME.new or .NAME.old exists:

    1. build PARENT/.NAME.<random>.tmp        partial: an interrupted write is undone by removing it
    2. rename it to PARENT/.NAME.new          complete: from here on the write rolls forward
    3. rename PARENT/NAME to PARENT/.NAME.old (when replacing)
    4. rename PARENT/.NAME.new to PARENT/NAME
    5. remove PARENT/.NAME.old

Removal (`corpus forget`) renames PARENT/NAME to PARENT/.NAME.gone, then removes that.

`recover` (under the lock) takes any interrupted state to the end of its write or back to its
start: a .tmp is removed, a .new is put in place, an .old is removed once NAME exists again and
restored when it does not, a .gone is removed. `leftovers` lists such states for `validate`,
skipping names whose lock a live process holds: a write in progress is not an interrupted one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from corpus_tool.errors import BusyError, CorpusError, InputError
from corpus_tool.io import files
from corpus_tool.io.locks import exclusive, is_held
from corpus_tool.store.faults import NO_STEPS, StepCounter

KINDS = ("tmp", "new", "old", "gone", "lock")
"""The hidden entries a write leaves beside PARENT/NAME: .NAME.<random>.tmp, .NAME.<kind>."""


@dataclass(frozen=True)
class Names:
    """The paths one write of `final` uses."""

    final: Path

    def sibling(self, kind: str) -> Path:
        return self.final.with_name(f".{self.final.name}.{kind}")

    def tmps(self) -> list[Path]:
        """Partial copies of this name left by interrupted builds."""
        parent = self.final.parent
        return [parent / e for e in _entries(parent) if parse(e) == (self.final.name, "tmp")]


@dataclass(frozen=True)
class Leftover:
    """A hidden entry an interrupted write left: whose it is (`name`) and in which state."""

    path: Path
    name: str
    kind: str  # one of KINDS
    final_exists: bool


def parse(entry: str) -> tuple[str, str] | None:
    """(NAME, kind) of a hidden entry that writes of PARENT/NAME make, or None for any other."""
    if not entry.startswith("."):
        return None
    stem, dot, kind = entry[1:].rpartition(".")
    if not dot or not stem or kind not in KINDS:
        return None
    if kind == "tmp":  # .NAME.<random>.tmp; the random part never holds a dot
        stem, dot, random = stem.rpartition(".")
        if not dot or not stem or not random:
            return None
    return stem, kind


def busy_message(final: Path) -> str:
    return f"busy: another corpus command is writing {final.name}; rerun when it has finished"


@contextlib.contextmanager
def staged_dir(final: Path, replace: bool = False, steps: StepCounter = NO_STEPS) -> Iterator[Path]:
    """Yield a temporary sibling directory; when the block succeeds it becomes `final`.

    Under final's lock, with any interrupted write of it finished or undone first. An exception
    in the block leaves `final` as it was (absent or old); so does a kill at any instant, once
    the next writer has recovered it.
    """
    with locked(final, steps), build(final, replace, steps) as tmp:
        yield tmp


@contextlib.contextmanager
def locked(final: Path, steps: StepCounter = NO_STEPS) -> Iterator[str | None]:
    """Hold final's write lock, with an interrupted write of it finished or undone first.

    Yields what recovery did ("finished", "undone", "cleaned") or None.
    """
    _make_parent(final)
    with exclusive(Names(final).sibling("lock"), busy_message(final)):
        steps.done("lock taken")
        yield _io(final, lambda: recover(final, steps))


@contextlib.contextmanager
def build(final: Path, replace: bool, steps: StepCounter = NO_STEPS) -> Iterator[Path]:
    """With final's lock held: a temporary directory that becomes `final` if the block succeeds."""
    _check_place(final, replace)
    tmp = _make_tmp(final)
    steps.done("temporary directory made")
    try:
        yield tmp
    except BaseException:
        with contextlib.suppress(OSError):
            remove_tree(tmp)
        raise
    try:
        _io(final, lambda: _swap(tmp, final, replace, steps))
    except BaseException:
        with contextlib.suppress(OSError):  # past step 2 this rolls forward, before it back
            recover(final)
        raise


def remove(final: Path, steps: StepCounter = NO_STEPS) -> None:
    """With final's lock held: remove it in one rename (a link is removed, never followed)."""
    names = Names(final)
    if os.path.lexists(final):
        _io(final, lambda: os.rename(final, names.sibling("gone")))
        steps.done(f"{final.name} set aside for removal")
    _io(final, lambda: remove_tree(names.sibling("gone"), steps))


def recover(final: Path, steps: StepCounter = NO_STEPS) -> str | None:
    """With final's lock held: finish or undo an interrupted write of it; say which, if any."""
    names = Names(final)
    cleaned = False
    for leftover in [*names.tmps(), names.sibling("gone")]:
        cleaned |= os.path.lexists(leftover)
        remove_tree(leftover, steps)
    old = names.sibling("old")
    if os.path.lexists(names.sibling("new")):
        _finish(names, steps)
        return "finished"
    if os.path.lexists(old):
        if os.path.lexists(final):
            remove_tree(old, steps)
            return "finished"
        os.rename(old, final)
        steps.done(f"{final.name} restored")
        return "undone"
    return "cleaned" if cleaned else None


def recover_all(parent: Path, steps: StepCounter = NO_STEPS) -> list[tuple[str, str]]:
    """Recover every name under `parent` an interrupted write left; skip those being written."""
    done: list[tuple[str, str]] = []
    for name in sorted({found[0] for found in map(parse, _entries(parent)) if found}):
        final = parent / name
        try:
            with locked(final, steps) as what:
                if what is not None:
                    done.append((name, what))
        except BusyError:
            continue  # a live write: it is not interrupted, and it cleans up after itself
    return done


def leftovers(parent: Path) -> list[Leftover]:
    """Hidden entries of interrupted writes under `parent` (not those of writes in progress)."""
    found = []
    for entry in _entries(parent):
        parsed = parse(entry)
        if parsed is None or is_held(parent / f".{parsed[0]}.lock"):
            continue
        final_exists = os.path.lexists(parent / parsed[0])
        found.append(Leftover(parent / entry, parsed[0], parsed[1], final_exists))
    return sorted(found, key=lambda f: f.path)


def write_case(
    target: Path, trace: str, expected: str | None, replace: bool, steps: StepCounter = NO_STEPS
) -> None:
    """Write a case in one rename (the caller holds `locked(target)`): the previous case's files
    stay (copied without following links), trace.yaml is replaced, not written through, and
    `expected` is written only where the case has no expected.yaml (a reviewed one survives)."""
    with build(target, replace=replace, steps=steps) as tmp:
        if os.path.lexists(target):
            copy_tree(target, tmp)
            steps.done(f"previous {target.name} copied")
        write_new(tmp / "trace.yaml", trace)
        steps.done("trace.yaml written")
        if expected is not None and not os.path.lexists(tmp / "expected.yaml"):
            write_new(tmp / "expected.yaml", expected)
            steps.done("expected.yaml drafted")


def copy_tree(source: Path, target: Path) -> None:
    """Copy the entries of directory `source` into `target`: links as links, never followed.

    A link to ~/.ssh stays a link (validate reports it), instead of putting key files into a
    case for `git add -A`; a pipe or a device is refused rather than read.
    """
    stack = [(source, target)]
    while stack:
        here, there = stack.pop()
        for entry in sorted(os.scandir(here), key=lambda e: e.name):
            dest = there / entry.name
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(entry.path), dest)
            elif stat.S_ISDIR(mode):
                dest.mkdir()
                stack.append((Path(entry.path), dest))
            elif stat.S_ISREG(mode):
                shutil.copy2(entry.path, dest, follow_symlinks=False)
            else:
                raise InputError(
                    "is not a file, directory or link (a pipe, socket or device); move it out",
                    entry.path,
                )


def write_new(path: Path, text: str) -> None:
    """A new file at path (in a staged directory), as `open_new` makes it."""
    with open_new(path) as handle:
        handle.write(text)


def open_new(path: Path) -> TextIO:
    """A new file at path (in a staged directory), open for writing text: a link standing
    there is replaced, never written through (a case's `trace.yaml -> ~/.bashrc` must not
    become the trace); a directory there is a one-line error."""
    if path.is_dir() and not path.is_symlink():
        raise InputError("is a directory in the case; move it out, then rerun", path)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return path.open("x", encoding="utf-8", newline="\n")


def remove_tree(path: Path, steps: StepCounter = NO_STEPS) -> None:
    """Remove a directory tree bottom up (links unlinked, never followed), a step per entry."""
    if not os.path.lexists(path):
        return
    if path.is_symlink() or not path.is_dir():
        path.unlink()
        steps.done(f"removed {path.name}")
        return
    for root, dirs, names in os.walk(path, topdown=False):
        for name in [*names, *dirs]:
            entry = Path(root, name)
            if entry.is_symlink() or not entry.is_dir():
                entry.unlink()
            else:
                entry.rmdir()
            steps.done(f"removed {entry.relative_to(path.parent)}")
    path.rmdir()
    steps.done(f"removed {path.name}")


def _swap(tmp: Path, final: Path, replace: bool, steps: StepCounter) -> None:
    if not replace and os.path.lexists(final):
        remove_tree(tmp)
        raise InputError("exists already; did another run write it? look, then rerun", final)
    names = Names(final)
    os.rename(tmp, names.sibling("new"))
    steps.done(f"new {final.name} complete")
    _finish(names, steps)


def _finish(names: Names, steps: StepCounter) -> None:
    """Steps 3 to 5: the complete .new replaces NAME, whose previous version is then removed."""
    final, old = names.final, names.sibling("old")
    if os.path.lexists(final):
        remove_tree(old, steps)  # a stale one, from a removal that was itself interrupted
        os.rename(final, old)
        steps.done(f"previous {final.name} set aside")
    os.rename(names.sibling("new"), final)
    steps.done(f"new {final.name} in place")
    remove_tree(old, steps)


def _check_place(final: Path, replace: bool) -> None:
    if final.is_symlink():
        raise InputError(
            "is a symbolic link; a case is a directory of its own: replace the link with the "
            "directory, or remove it",
            final,
        )
    if os.path.lexists(final) and not final.is_dir():
        raise InputError("exists and is not a directory; move it aside", final)
    if os.path.lexists(final) and not replace:
        raise InputError("exists already; did another run write it? look, then rerun", final)


def _make_parent(final: Path) -> None:
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # `cases` is a file, a read-only place
        raise InputError(
            f"cannot write here ({err.strerror or err}); make it a writable directory",
            final.parent,
        ) from None


def _make_tmp(final: Path) -> Path:
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent))
        tmp.chmod(files.mode_for(final, 0o777))  # mkdtemp makes 0700: keep, or what umask gives
        return tmp
    except OSError as err:
        raise InputError(
            f"cannot write here ({err.strerror or err}); make it a writable directory",
            final.parent,
        ) from None


def _io(final: Path, action: Callable[[], object]) -> str | None:
    """Run a disk action; an OSError becomes a one-line error naming the case directory."""
    try:
        result = action()
    except CorpusError:
        raise
    except OSError as err:
        raise InputError(
            f"cannot write it ({err.strerror or err}); fix the permissions, then rerun: the "
            "next write finishes or undoes this one",
            final,
        ) from None
    return result if isinstance(result, str) else None


def _entries(parent: Path) -> list[str]:
    try:
        return sorted(os.listdir(parent))
    except OSError:  # absent, or not a directory: nothing was left there
        return []
