"""Reading a git repository for `affected`: revisions, the diff, listings and blobs.

Everything goes through GitPython's command wrapper with NUL-separated output (`-z`), so paths
with spaces, quotes or non-ASCII characters arrive as they are. Paths are repository-root
relative, in POSIX form, as git prints them.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import git

from corpus_tool.errors import UsageError

CHANGE_STATUSES = {"A": "added", "C": "added", "D": "deleted", "M": "modified", "R": "renamed"}
"""git's one-letter diff statuses; T (type change) and U (unmerged) read as modified."""

BATCH = 4096
"""Blob ids per `git cat-file --batch` run: bounds the output held in memory at once."""

INDEX = "index"
WORKTREE = "worktree"
GITLINK = "160000"
"""The mode of a submodule's entry (a commit id, not a file) in a tree or the index."""


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


class Repository:
    """A git repository opened from a directory inside its working tree."""

    def __init__(self, repo: git.Repo) -> None:
        self._repo = repo
        self.root = Path(str(repo.working_tree_dir)).resolve()

    @classmethod
    def discover(cls, start: Path) -> Repository:
        """The repository holding `start`; UsageError outside one (or without git)."""
        try:
            repo = git.Repo(start, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise UsageError(
                f"{start}: not inside a git repository; `corpus affected` reads a git diff"
            ) from None
        if repo.bare or repo.working_tree_dir is None:
            raise UsageError(f"{start}: a bare repository has no working tree to select from")
        return cls(repo)

    def run(self, *args: str) -> str:
        """Output of one git command run at the repository root (pathspecs taken literally)."""
        try:
            out: str = self._repo.git.execute(
                ["git", "--literal-pathspecs", *args], strip_newline_in_stdout=False
            )
        except git.GitCommandNotFound:
            raise UsageError("git is not installed or not on PATH") from None
        return out

    def commit(self, rev: str) -> str:
        """The commit id a revision names; UsageError for an unknown one."""
        if not rev or rev.startswith("-"):
            raise UsageError(f"unknown revision {rev!r}: give a branch, tag or commit")
        try:
            return self.run(
                "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"
            ).strip()
        except git.GitCommandError:
            raise UsageError(
                f"unknown revision {rev!r}: no such branch, tag or commit "
                "(a CI checkout may need `git fetch` of it first)"
            ) from None

    def merge_base(self, base: str, head: str) -> str:
        """The best common ancestor of two commits (what `base...head` diffs from)."""
        try:
            return self.run("merge-base", base, head).strip()
        except git.GitCommandError:
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
        """Files git does not track and does not ignore."""
        return _split(self.run("ls-files", "-z", "--others", "--exclude-standard"))

    def head_files(self, head: str, prefixes: list[str]) -> HeadFiles:
        """Blob ids of the files under `prefixes` on the head side."""
        if head == INDEX:
            return self._index(prefixes)
        if head == WORKTREE:
            return self._worktree(prefixes)
        return self._tree(head, prefixes)

    def tree(self, commit: str, paths: list[str]) -> Mapping[str, str]:
        """Blob ids of the files at or under `paths` in a commit."""
        return self._tree(commit, paths).blobs

    def _tree(self, commit: str, paths: list[str]) -> HeadFiles:
        blobs: dict[str, str] = {}
        links: set[str] = set()
        for entry in _split(self.run("ls-tree", "-r", "-z", commit, "--", *paths)):
            meta, _, path = entry.partition("\t")
            _mode, kind, blob = meta.split()
            if kind == "blob":
                blobs[path] = blob
            elif kind == "commit":  # a submodule: a commit of another repository
                links.add(path)
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
        others = _split(
            self.run("ls-files", "-z", "--others", "--exclude-standard", "--", *prefixes)
        )
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
        data: Any = self._repo.git.get_object_data(blob)[3]
        return bytes(data)

    def read_many(self, blobs: list[str], head_files: HeadFiles | None = None) -> dict[str, bytes]:
        """The bytes of many blobs, streamed through `git cat-file --batch` in chunks.

        GitPython's object reader makes one round trip per object; on a cold cache that is
        most of the time spent, so the ids go to one git process a chunk at a time.
        """
        found = {b: head_files.local[b] for b in blobs if head_files and b in head_files.local}
        wanted = sorted(set(blobs) - set(found))
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH]
            done = subprocess.run(
                ["git", "cat-file", "--batch"],
                cwd=self.root,
                input="".join(f"{blob}\n" for blob in chunk).encode(),
                capture_output=True,
                check=True,
            )
            found.update(parse_batch(done.stdout))
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
