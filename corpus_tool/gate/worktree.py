"""A revision checked out in a temporary `git worktree`, removed afterwards whatever happens.

The gate replays the base side from its own files (its agent code, its corpus) without
touching the user's working tree, index, branch or HEAD: `git worktree add --detach` makes a
second checkout in a temporary directory, and the `finally` removes it, also on Ctrl-C or
SIGTERM (turned into KeyboardInterrupt while the gate runs). A checkout left by a process that
was killed outright is swept by the next gate run.

The checkout keeps its `.git` file, which names the user's git dir: the replay worker's
sandbox binds the git dir a checkout names read-only, and an emptied file would hide it from
the sandbox, not from an agent that knows the repository's path. `gitdir` checks and restores
the git dir after the replays; the one git command the gate runs after agent code ran
(`worktree prune`, when a checkout is removed) gets `gitdir.safe_args()`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from corpus_tool.errors import CorpusError, UsageError
from corpus_tool.gate.gitdir import safe_args
from corpus_tool.io import files
from corpus_tool.select.git import GitError, Repository
from corpus_tool.store.corpus import CASES, WAIVERS, is_case_id

PREFIX = "corpus-gate-"
_OURS = re.compile(rf"{PREFIX}(\d+)-")
_STOPS = (signal.SIGINT, signal.SIGTERM)


@dataclass(frozen=True)
class Only:
    """What of a commit's corpus a side replays: the cases directory (repository-relative,
    with its slash) and the cases in it to check out; everything outside that directory is
    checked out (the agent's code, corpus.yaml, the waivers, files beside the cases)."""

    cases: str
    ids: tuple[str, ...]

    @property
    def waivers(self) -> str:
        """The corpus's waivers directory, beside its cases directory."""
        return self.cases.removesuffix(f"{CASES}/") + f"{WAIVERS}/"


@contextlib.contextmanager
def checkout(repo: Repository, commit: str, only: Only | None = None) -> Iterator[Path]:
    """The commit checked out (detached) in a temporary worktree, for the block's duration;
    `only`: the other cases left out (a corpus of 100,000 cases is 200,000 files to write,
    where the gate replays a few)."""
    place = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    patterns = _patterns(only) if only is not None else None
    try:
        try:
            if patterns is None:
                repo.run("worktree", "add", "--detach", "--quiet", str(place), commit)
            else:
                repo.run(
                    "worktree", "add", "--no-checkout", "--detach", "--quiet", str(place), commit
                )
                _sparse(place, patterns)
                assert only is not None
                # a waiver naming a case the side lacks reads differently (invalid, not
                # added), so the cases the checked-out waivers name are checked out too
                named = _waiver_cases(place / only.waivers) - set(only.ids)
                wider = _patterns(Only(only.cases, (*only.ids, *sorted(named))))
                if named and wider is not None:
                    _sparse(place, wider)
        except GitError as err:
            raise UsageError(
                f"cannot check out {commit[:12]} in a temporary worktree: {_first(err)}"
            ) from None
        yield place
    finally:
        with held():
            remove(repo, place)


def _patterns(only: Only) -> str | None:
    """The sparse-checkout patterns (gitignore's form) of everything but the cases not named;
    None where a pattern cannot say the path (a line break in it)."""
    if any(c in only.cases + "".join(only.ids) for c in "\n\r"):
        return None
    cases = "/" + _escaped(only.cases)
    lines = ["/*", f"!{cases}*/", *(f"{cases}{_escaped(i)}/" for i in sorted(only.ids))]
    return "".join(line + "\n" for line in lines)


def _waiver_cases(folder: Path) -> set[str]:
    """The case ids the waivers in `folder` name (a waiver that does not read names none)."""
    found: set[str] = set()
    try:
        paths = sorted(folder.iterdir())
    except OSError:
        return found
    for path in paths:
        if not path.name.endswith((".yaml", ".yml")):
            continue
        try:
            data = files.read_yaml(path)
        except CorpusError:
            continue
        case = data.get("case") if isinstance(data, dict) else None
        if isinstance(case, str) and is_case_id(case):
            found.add(case)
    return found


def _escaped(path: str) -> str:
    return "".join("\\" + c if c in "\\*?[]! #" else c for c in path)


def _sparse(place: Path, patterns: str) -> None:
    """Fill a `--no-checkout` worktree with the files the patterns name. The patterns go to
    the checkout's own git dir (`worktrees/<name>/info/sparse-checkout`, removed with it)
    and sparse checkout is turned on for this one command, so no setting of the repository
    changes; the other files are in the checkout's index, marked skip-worktree (a `git
    status` there shows nothing changed)."""
    found = _checkout_git(place, "rev-parse", "--absolute-git-dir")
    info = Path(found.strip()) / "info"
    info.mkdir(exist_ok=True)
    (info / "sparse-checkout").write_text(patterns, encoding="utf-8")
    _checkout_git(
        place,
        "-c",
        "core.sparseCheckout=true",
        "-c",
        "core.sparseCheckoutCone=false",
        "read-tree",
        "-mu",
        "HEAD",
    )


def _checkout_git(place: Path, *args: str) -> str:
    """git run in a checkout of ours (before any agent code ran)."""
    return Repository(place).run(*args)


def remove(repo: Repository, place: Path) -> None:
    """Remove a worktree of ours: its directory, then git's record of it (`prune`, which reads
    nothing in a checkout, run with the settings `gitdir.SAFE` names: agent code has run by
    now)."""
    shutil.rmtree(place, ignore_errors=True)
    with contextlib.suppress(GitError):
        repo.run(*safe_args(), "worktree", "prune")


def sweep(repo: Repository) -> list[Path]:
    """Remove worktrees left by gate runs whose process is gone (killed with SIGKILL)."""
    swept: list[Path] = []
    for line in repo.run(*safe_args(), "worktree", "list", "--porcelain").splitlines():
        if not line.startswith("worktree "):
            continue
        place = Path(line.removeprefix("worktree "))
        found = _OURS.match(place.name)
        if found and not _alive(int(found.group(1))):
            remove(repo, place)
            swept.append(place)
    return swept


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt for the block, as Ctrl-C does, so `finally` runs."""
    if not _main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait while a worktree is removed: a second one must not leave it."""
    if not _main_thread():
        yield
        return
    before = {s: signal.signal(s, signal.SIG_IGN) for s in _STOPS}
    try:
        yield
    finally:
        for stop, handler in before.items():
            signal.signal(stop, handler)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _first(err: GitError) -> str:
    text = str(err.stderr or err).strip().strip("'").strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "git worktree add failed"
