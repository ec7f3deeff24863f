"""What a corpus's replay workers are started with: entrypoint, environment, limits, protection."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from corpus_tool.errors import InputError, UsageError
from corpus_tool.model.config import DEFAULT_KEY_ENV, RedactionSection
from corpus_tool.replay.workers.loader import import_root
from corpus_tool.replay.workers.process import Launch
from corpus_tool.replay.workers.wire import WorkerSetup
from corpus_tool.store.corpus import Corpus

PASSED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT")
"""Variables every worker gets (when set): enough to run Python and find programs."""
FIXED = {"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
"""Set for every worker unless replay.env passes them: the same set order and encoding in every
worker and on every machine, so a trajectory does not depend on which worker ran it."""


def launch_for(
    corpus: Corpus, timeout_s: float | None = None, environ: Mapping[str, str] | None = None
) -> Launch:
    """How to start workers for `corpus`; --timeout (`timeout_s`) overrides replay.timeout_s."""
    spec = corpus.config.agent.entrypoint or ""
    if not spec and not corpus.config.agent.command:
        raise UsageError(
            f"{corpus.config_path}: no agent.entrypoint; set it to module:callable, or "
            "agent.command to the command that runs the agent (see `corpus replay --help`)"
        )
    root = corpus.root.resolve()
    readonly, hidden = protected(root), key_files(corpus.config.redaction, root)
    setup = WorkerSetup(spec, root, corpus.config, readonly, Path(), Path(), True, hidden)
    limit = timeout_s or corpus.config.replay.timeout_s
    return Launch(setup, worker_env(corpus, os.environ if environ is None else environ), limit)


def worker_env(corpus: Corpus, environ: Mapping[str, str]) -> dict[str, str]:
    """The worker's whole environment: PASSED, then what replay.env names; never the key."""
    named = corpus.config.replay.env
    keys = {DEFAULT_KEY_ENV, corpus.config.redaction.key_env}
    leaked = sorted(keys.intersection(named))
    if leaked:
        raise InputError(
            f"replay.env passes {', '.join(leaked)}, the redaction key, to the agent; "
            "remove it (an agent never needs the key)",
            corpus.config_path,
        )
    env = {name: environ[name] for name in (*PASSED, *named) if name in environ}
    return {**FIXED, **env}


def protected(corpus_root: Path) -> tuple[Path, ...]:
    """What workers may not write: the corpus's repository (or the corpus itself, or nothing,
    when the temporary directory where workers live lies inside), then its git directory and
    common git directory where they lie outside it (a linked worktree's, `corpus gate`'s
    checkouts included: their hooks and config are the user's repository's)."""
    scratch = Path(tempfile.gettempdir()).resolve()
    repo = import_root(corpus_root)
    first = [c for c in (repo, corpus_root) if not scratch.is_relative_to(c)][:1]
    found = [*first]
    for path in git_dirs(repo):
        inside = any(path.is_relative_to(p) for p in found)
        if not inside and not scratch.is_relative_to(path):
            found.append(path)
    return tuple(found)


GIT_ENV = (
    "GIT_DIR",
    "GIT_COMMON_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_CEILING_DIRECTORIES",
)


def git_dirs(repo: Path) -> list[Path]:
    """`git rev-parse --git-dir --git-common-dir` of the repository (once per run, in the
    parent), common dir first; none outside git or without git. The environment's GIT_DIR and
    friends (a hook's) are left out: they would name another repository's."""
    if not (repo / ".git").exists():
        return []
    env = {k: v for k, v in os.environ.items() if k not in GIT_ENV}
    argv = ["git", "-C", str(repo), "rev-parse", "--path-format=absolute"]
    try:
        done = subprocess.run(
            [*argv, "--git-common-dir", "--git-dir"], capture_output=True, text=True, env=env
        )
    except OSError:
        return _linked_git_dirs(repo)
    if done.returncode != 0:  # no git, or one that refuses the repository (safe.directory)
        return _linked_git_dirs(repo)
    return [Path(line).resolve() for line in done.stdout.splitlines() if line.strip()]


def _linked_git_dirs(repo: Path) -> list[Path]:
    """What git would answer, read from the files: a `.git` file names the git dir
    (`gitdir: ...`), whose `commondir` names the common dir."""
    try:
        text = (repo / ".git").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):  # a directory: inside the repository anyway
        return []
    if not text.startswith("gitdir:"):
        return []
    git_dir = (repo / text.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return [git_dir]
    return [common, git_dir]


def key_files(redaction: RedactionSection, corpus_root: Path) -> tuple[Path, ...]:
    """The redaction key file the worker must not see (redaction.key_file, resolved as
    `redact.keys.key_file_path` does; that module is a sibling layer and not imported)."""
    name = redaction.key_file
    if not name:
        return ()
    path = Path(os.path.expanduser(name))
    return ((path if path.is_absolute() else corpus_root / path).resolve(),)
