"""hooks/pre-commit, the plain git hook, blocks a commit that breaks a case."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLES, GIT_ENV, ROOT, git


def _commit(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **GIT_ENV,
        "CORPUS": f"{sys.executable} -m corpus_tool",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=repo, env=env, capture_output=True, text=True
    )


def test_git_hook_blocks_broken_case_and_passes_clean_one(git_repo: Path) -> None:
    shutil.copy(ROOT / "hooks/pre-commit", git_repo / ".git/hooks/pre-commit")
    shutil.copytree(EXAMPLES / "corpus", git_repo / "evals")
    git(git_repo, "add", "-A")
    clean = _commit(git_repo, "corpus")
    assert clean.returncode == 0, clean.stdout + clean.stderr

    expected = git_repo / "evals/cases/refund-success/expected.yaml"
    expected.write_text(expected.read_text().replace("status: active", "status: sleeping"))
    git(git_repo, "add", "-A")
    blocked = _commit(git_repo, "break it")
    assert blocked.returncode != 0
    assert "evals/cases/refund-success/expected.yaml" in blocked.stdout + blocked.stderr
    assert git(git_repo, "log", "--format=%s", "-1").strip() == "corpus"
