"""The gate's checkout of a side holds the cases it replays and everything outside the cases
directory (the agent's code, corpus.yaml, waivers, files beside the cases), not the other
cases, except those a waiver names (a waiver of a missing case reads as another waiver); the
repository's settings are left as they were and the checkout goes afterwards."""

from __future__ import annotations

import subprocess
from pathlib import Path

from corpus_tool.gate.worktree import Only, checkout
from corpus_tool.select.git import Repository
from tests.conftest import git

FILES = [
    "agent/run.py",
    "top.txt",
    "ev [v2]/corpus.yaml",
    "ev [v2]/waivers/W-1.yaml",
    "ev [v2]/cases/README.md",
    "ev [v2]/cases/keep-me/trace.yaml",
    "ev [v2]/cases/keep-me/deeper/expected.yaml",
    "ev [v2]/cases/other/trace.yaml",
    "ev [v2]/cases/other-2/trace.yaml",
]


def _write(root: Path) -> None:
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"{name}\n", encoding="utf-8")
    (root / "ev [v2]/waivers/W-1.yaml").write_text("id: W-1\ncase: other-2\n", encoding="utf-8")


def _files(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.name != ".git"
    )


def test_only_the_selected_cases_and_everything_else(git_repo: Path) -> None:
    _write(git_repo)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "files")
    config = (git_repo / ".git/config").read_bytes()
    repo = Repository(git_repo)
    commit = repo.run("rev-parse", "HEAD").strip()
    with checkout(repo, commit, Only("ev [v2]/cases/", ("keep-me",))) as place:
        assert _files(place) == sorted(set(FILES) - {"ev [v2]/cases/other/trace.yaml"})
        assert (place / "top.txt").read_text(encoding="utf-8") == "top.txt\n"
        status = subprocess.run(
            ["git", "status", "--porcelain"], cwd=place, capture_output=True, text=True
        )
        assert status.stdout == ""  # the left-out files are not "deleted" there
    assert not place.exists()
    assert (git_repo / ".git/config").read_bytes() == config  # no setting of the repository
    assert len(git(git_repo, "worktree", "list").splitlines()) == 1  # the checkout pruned


def test_without_only_every_file(git_repo: Path) -> None:
    _write(git_repo)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "files")
    repo = Repository(git_repo)
    with checkout(repo, "HEAD") as place:
        assert _files(place) == sorted(FILES)
