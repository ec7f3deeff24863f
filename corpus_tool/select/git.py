"""Reading a git repository for `affected`: revisions, the diff, listings and blobs.

Every command runs git itself (as GitPython's wrapper ran it: at the repository root, its
messages in English) with NUL-separated output (`-z`), so paths with spaces, quotes or
non-ASCII characters arrive as they are. Paths are repository-root relative, in POSIX form, as
git prints them. GitPython is not imported: on a corpus of 100,000 cases its import cost more
than the selection's own work.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from corpus_tool.errors import UsageError

CHANGE_STATUSES = {"A": "added", "C": "added", "D": "deleted", "M": "modified", "R": "renamed"}
"""git's one-letter diff statuses; T (type change) and U (unmerged) read as modified."""

BATCH = 4096
"""Blob ids per `git cat-file --batch` run: bounds the output held in memory at once."""

INDEX = "index"
WORKTREE = "worktree"
GITLINK = "160000"
"""The mode of a submodule's entry (a commit id, not a file) in a tree or the index."""

_ENCODING = sys.getfilesystemencoding()
_TREE_BLOB = re.compile(r"[0-7]{6} blob ([0-9a-f]+)\t([^\0]*)")
_TREE_DIR = re.compile(r"[0-7]{6} (?:tree|commit) [0-9a-f]+\t([^\0]*)")
MANY_PATHS = 1000
"""Past this many case files asked for, a commit's cases are listed whole."""
_TREE_LINK = re.compile(r"[0-7]{6} commit [0-9a-f]+\t([^\0]*)")


class GitError(Exception):
    """A git command that exited non-zero; `stderr` in the form GitPython's GitCommandError
    gave it (what the gate's messages quote)."""

    def __init__(self, argv: list[str], status: int, stderr: bytes) -> None:
        text = stderr.decode(_ENCODING, "surrogateescape").removesuffix("\n")
        self.status = status
        self.stderr = f"\n  stderr: '{text}'" if text else ""
        super().__init__(
            f"Cmd('git') failed due to: exit code({status})\n  cmdline: {' '.join(argv)}"
            + self.stderr
        )


@dataclass(frozen=True)
class ChangedFile:
    """One changed file between the merge base and the head side."""

    status: str  # added | modified | deleted | renamed
    path: str  # the new path of a rename
    old_path: str | None = None  # where a renamed file came from
    link: bool = False  # a submodule (gitlink) on either side: the path is a directory


@dataclass(frozen=True)
class HeadFiles:
    """The head side's files under some prefixes: path -> blob id (worktree files hashed)."""

    blobs: Mapping[str, str]
    local: Mapping[str, bytes] = field(default_factory=dict)  # blob id -> worktree bytes
    links: frozenset[str] = frozenset()  # submodule paths: their files are in another repo
    case_dirs: frozenset[str] | None = None
    """When the cases were listed by directory: the names in cases/ that are directories or
    submodules (`blobs` then holds the other files, and the case files asked for so far)."""
    more: Callable[[list[str]], Mapping[str, str]] | None = None
    """Blob ids of case files `blobs` does not hold yet (with `case_dirs`)."""

    def lookup(self, paths: list[str]) -> dict[str, str]:
        """The blob ids of those of these paths the side has."""
        blobs = self.blobs
        if self.more is not None:
            missing = [p for p in paths if p not in blobs]
            if missing and isinstance(blobs, dict):
                blobs.update(self.more(missing))
        return {p: blobs[p] for p in paths if p in blobs}


class Repository:
    """A git repository opened from a directory inside its working tree."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._untracked: list[str] | None = None

    @classmethod
    def discover(cls, start: Path) -> Repository:
        """The repository holding `start`; UsageError outside one (or without git)."""
        try:
            top = _git(start, ["rev-parse", "--show-toplevel"])
        except (GitError, OSError) as err:
            if isinstance(err, GitError) and _bare(start):
                raise UsageError(
                    f"{start}: a bare repository has no working tree to select from"
                ) from None
            if isinstance(err, OSError) and start.is_dir():  # git itself did not start
                raise UsageError("git is not installed or not on PATH") from None
            raise UsageError(
                f"{start}: not inside a git repository; `corpus affected` reads a git diff"
            ) from None
        return cls(Path(top.decode(_ENCODING, "surrogateescape").rstrip("\n")))

    def run(self, *args: str) -> str:
        """Output of one git command run at the repository root (pathspecs taken literally)."""
        return self.run_bytes(*args).decode(_ENCODING, "surrogateescape")

    def run_bytes(self, *args: str, stdin: bytes | None = None) -> bytes:
        """run(), its output as git wrote it."""
        try:
            return _git(self.root, ["--literal-pathspecs", *args], stdin)
        except OSError:
            raise UsageError("git is not installed or not on PATH") from None

    def commit(self, rev: str) -> str:
        """The commit id a revision names; UsageError for an unknown one."""
        if not rev or rev.startswith("-"):
            raise UsageError(f"unknown revision {rev!r}: give a branch, tag or commit")
        try:
            return self.run(
                "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"
            ).strip()
        except GitError:
            raise UsageError(
                f"unknown revision {rev!r}: no such branch, tag or commit "
                "(a CI checkout may need `git fetch` of it first)"
            ) from None

    def merge_base(self, base: str, head: str) -> str:
        """The best common ancestor of two commits (what `base...head` diffs from)."""
        try:
            return self.run("merge-base", base, head).strip()
        except GitError:
            raise UsageError(
                f"no common ancestor of {base[:12]} and {head[:12]}: unrelated histories, "
                "or a shallow clone (fetch with more depth)"
            ) from None

    def changes(self, merge_base: str, head: str) -> list[ChangedFile]:
        """Files changed from `merge_base` to a commit, the index (INDEX) or the worktree.

        A submodule bump is a change too, whatever `diff.ignoreSubmodules` or a
        `submodule.<name>.ignore` in .gitmodules (which the change itself may set) says.
        """
        diff = ["diff", "--raw", "-z", "-M", "--no-abbrev", "--no-ext-diff", "--no-color"]
        diff.append("--ignore-submodules=none")
        if head == INDEX:
            raw = self.run(*diff, "--cached", merge_base, "--")
        elif head == WORKTREE:
            raw = self.run(*diff, merge_base, "--")
        else:
            raw = self.run(*diff, merge_base, head, "--")
        found = parse_raw(raw)
        if head == WORKTREE:
            found.extend(ChangedFile("added", path) for path in self.untracked())
        return found

    def untracked(self) -> list[str]:
        """Files git does not track and does not ignore (listed once a run: it reads every
        directory of the work tree, 100,000 of them in a corpus of 100,000 cases, and the
        head side and the diff of the work tree both ask)."""
        if self._untracked is None:
            self._untracked = _split(self.run("ls-files", "-z", "--others", "--exclude-standard"))
        return list(self._untracked)

    def head_files(self, head: str, prefixes: list[str], cases: str | None = None) -> HeadFiles:
        """Blob ids of the files under `prefixes` on the head side. `cases` (one of the
        prefixes, a directory): on a commit, its files are listed by directory, and read as
        asked (HeadFiles.lookup), not all at once."""
        if head == INDEX:
            return self._index(prefixes)
        if head == WORKTREE:
            return self._worktree(prefixes)
        if cases is not None and cases.endswith("/") and cases in prefixes:
            return self._tree_by_case(head, [p for p in prefixes if p != cases], cases)
        return self._tree(head, prefixes)

    def _tree_by_case(self, commit: str, others: list[str], cases: str) -> HeadFiles:
        """A commit's files under `others`, and the names in `cases`: what a selection
        needs of a corpus of 100,000 cases is their names, and a few cases' files."""
        listed = self._tree(commit, others) if others else HeadFiles({})
        raw = self.run("ls-tree", "-z", commit, "--", cases)
        dirs = frozenset(path[len(cases) :] for path in _TREE_DIR.findall(raw))
        every: dict[str, str] = {}

        def more(paths: list[str]) -> Mapping[str, str]:
            if every or len(paths) > MANY_PATHS:  # most of the corpus: list it whole, once
                if not every:
                    every.update(self._tree(commit, [cases]).blobs)
                return {p: every[p] for p in paths if p in every}
            return self._tree(commit, paths).blobs

        blobs = dict(listed.blobs)
        return HeadFiles(blobs, links=listed.links, case_dirs=dirs, more=more)

    def tree(self, commit: str, paths: list[str]) -> Mapping[str, str]:
        """Blob ids of the files at or under `paths` in a commit."""
        return self._tree(commit, paths).blobs

    def _tree(self, commit: str, paths: list[str]) -> HeadFiles:
        raw = self.run("ls-tree", "-r", "-z", commit, "--", *paths)
        # each entry `<mode> <type> <id>\t<path>`; matched over the whole output at once (a
        # corpus of 100,000 cases lists 200,000 files), a path taken whole up to its NUL
        blobs = {path: blob for blob, path in _TREE_BLOB.findall(raw)}
        links = _TREE_LINK.findall(raw)  # submodules: commits of another repository
        return HeadFiles(blobs, links=frozenset(links))

    def _index(self, prefixes: list[str]) -> HeadFiles:
        blobs: dict[str, str] = {}
        links: set[str] = set()
        for entry in _split(self.run("ls-files", "-s", "-z", "--", *prefixes)):
            meta, _, path = entry.partition("\t")
            mode, blob, _stage = meta.split()
            if mode == GITLINK:  # a submodule is a commit, not a file
                links.add(path)
            else:
                blobs[path] = blob
        return HeadFiles(blobs, links=frozenset(links))

    def _worktree(self, prefixes: list[str]) -> HeadFiles:
        staged = self._index(prefixes)
        blobs = dict(staged.blobs)
        local: dict[str, bytes] = {}
        dirty = _split(self.run("diff", "--name-only", "-z", "--no-ext-diff", "--", *prefixes))
        others = [p for p in self.untracked() if _within(p, prefixes)]
        for path in dirty + others:
            try:
                data = (self.root / path).read_bytes()
            except OSError:  # deleted in the worktree (or unreadable: then it is gone for us)
                blobs.pop(path, None)
                continue
            blob = blob_id(data)
            blobs[path] = blob
            local[blob] = data
        return HeadFiles(blobs, local, staged.links)

    def read(self, blob: str, head_files: HeadFiles | None = None) -> bytes:
        """The bytes of a blob (worktree bytes when `head_files` hashed them itself)."""
        if head_files is not None and blob in head_files.local:
            return head_files.local[blob]
        found = self.read_many([blob])
        if blob not in found:
            raise UsageError(f"git cannot read the object {blob}")
        return found[blob]

    def read_many(self, blobs: list[str], head_files: HeadFiles | None = None) -> dict[str, bytes]:
        """The bytes of many blobs, streamed through `git cat-file --batch` in chunks.

        GitPython's object reader makes one round trip per object; on a cold cache that is
        most of the time spent, so the ids go to one git process a chunk at a time.
        """
        found = {b: head_files.local[b] for b in blobs if head_files and b in head_files.local}
        wanted = sorted(set(blobs) - set(found))
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH]
            stdin = "".join(f"{blob}\n" for blob in chunk).encode()
            found.update(parse_batch(self.run_bytes("cat-file", "--batch", stdin=stdin)))
        return found

    def cache_dir(self) -> Path:
        """The cache directory: $CORPUS_CACHE_DIR, else <git dir>/corpus-tool.

        The git dir of this worktree, like its index: untracked by construction, and two
        worktrees of one repository never race on one file.
        """
        override = os.environ.get("CORPUS_CACHE_DIR")
        if override:
            return Path(override)
        return Path(self.run("rev-parse", "--absolute-git-dir").strip()) / "corpus-tool"


def _git(where: Path, args: list[str], stdin: bytes | None = None) -> bytes:
    """git's output; GitError when it fails, OSError when it cannot start (or `where` is
    gone). Its messages in English, as GitPython had them."""
    argv = ["git", *args]
    env = {**os.environ, "LANGUAGE": "C", "LC_ALL": "C"}
    done = subprocess.run(argv, cwd=where, input=stdin, capture_output=True, env=env, check=False)
    if done.returncode != 0:
        raise GitError(argv, done.returncode, done.stderr)
    return done.stdout


def _within(path: str, specs: list[str]) -> bool:
    """Whether a pathspec of `specs` (a file, or a directory with or without its slash) holds
    `path`, as git's literal pathspecs match it."""
    return any(path == s or path.startswith(s if s.endswith("/") else s + "/") for s in specs)


def _bare(start: Path) -> bool:
    try:
        return _git(start, ["rev-parse", "--is-bare-repository"]).strip() == b"true"
    except (GitError, OSError):
        return False


def blob_id(data: bytes) -> str:
    """The id git gives a blob with these bytes (SHA-1 repositories)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def parse_batch(raw: bytes) -> dict[str, bytes]:
    """Blob contents from `git cat-file --batch` output (missing objects left out)."""
    found: dict[str, bytes] = {}
    at = 0
    while at < len(raw):
        end = raw.index(b"\n", at)
        header = raw[at:end].split()
        at = end + 1
        if len(header) == 3:
            size = int(header[2])
            found[header[0].decode()] = raw[at : at + size]
            at += size + 1  # the content is followed by a newline
    return found


def parse_raw(raw: str) -> list[ChangedFile]:
    """Changes from `git diff --raw -z` output: `:old-mode new-mode old new STATUS`, then the
    path (two paths for a rename or copy). A gitlink mode on either side marks a submodule."""
    tokens = _split(raw)
    found: list[ChangedFile] = []
    i = 0
    while i < len(tokens):
        old_mode, new_mode, _old, _new, status = tokens[i].lstrip(":").split()
        letter = status[:1]
        link = GITLINK in (old_mode, new_mode)
        if letter in ("R", "C"):
            old, new = tokens[i + 1], tokens[i + 2]
            found.append(
                ChangedFile(CHANGE_STATUSES[letter], new, old if letter == "R" else None, link)
            )
            i += 3
        else:
            found.append(
                ChangedFile(CHANGE_STATUSES.get(letter, "modified"), tokens[i + 1], None, link)
            )
            i += 2
    return found


def _split(raw: str) -> list[str]:
    return [token for token in raw.split("\0") if token]
