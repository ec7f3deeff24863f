"""The gate's git-dir guard on a real repository: every way of changing what it watches (a
link in place of the config, a hooks directory swapped for a link, a mode, a new ref, a
removed file) is found, put back byte for byte, and named."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from corpus_tool.gate import gitdir
from tests.conftest import GIT_ENV


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    env = {**os.environ, **GIT_ENV}
    for argv in (
        ["init", "-q", "-b", "main", str(root)],
        ["-C", str(root), "commit", "-q", "--allow-empty", "-m", "one"],
        ["-C", str(root), "pack-refs", "--all"],
    ):
        subprocess.run(["git", *argv], check=True, env=env, capture_output=True)
    hook = root / ".git/hooks/post-checkout"
    hook.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    hook.chmod(0o755)
    return root / ".git"


def _files(git_dir: Path) -> dict[str, tuple[int, bytes | str]]:
    found: dict[str, tuple[int, bytes | str]] = {}
    for path in sorted(git_dir.rglob("*")):
        info = path.lstat()
        if path.is_symlink():
            found[str(path)] = (info.st_mode, os.readlink(path))
        elif path.is_file():
            found[str(path)] = (info.st_mode, path.read_bytes())
        else:
            found[str(path)] = (info.st_mode, "dir")
    return found


def _tamper(git_dir: Path, outside: Path) -> None:
    outside.mkdir()
    (outside / "pre-commit").write_text("#!/bin/sh\ntouch pwned\n", encoding="utf-8")
    (git_dir / "config").rename(outside / "config")
    (git_dir / "config").symlink_to(outside / "config")
    os.chmod(git_dir / "hooks/post-checkout", 0o777)
    os.rename(git_dir / "hooks", outside / "old-hooks")
    (git_dir / "hooks").symlink_to(outside)
    (git_dir / "refs/heads/evil").write_text("0" * 40 + "\n", encoding="utf-8")
    (git_dir / "packed-refs").unlink()
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info/attributes").write_text("* filter=evil\n", encoding="utf-8")


def test_every_change_to_the_watched_git_dir_is_put_back_and_named(tmp_path: Path) -> None:
    git_dir = _repo(tmp_path)
    before_files = _files(git_dir)
    roots = gitdir.git_dirs(git_dir, git_dir)
    before = gitdir.take(roots)
    gitdir.check(before, roots)  # nothing changed: nothing said
    _tamper(git_dir, tmp_path / "attacker")
    with pytest.raises(gitdir.GitDirChanged) as raised:
        gitdir.check(before, roots)
    said = str(raised.value)
    for name in ("config", "hooks", "refs/heads/evil", "packed-refs"):
        assert name in said, said
    assert "put back as it was" in said and "\n" not in said
    assert _files(git_dir) == before_files
    gitdir.check(before, roots)  # and it stays put back
