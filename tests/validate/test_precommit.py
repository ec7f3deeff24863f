"""The real pre-commit runs our hook from .pre-commit-hooks.yaml against a real repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, GIT_ENV, ROOT, git


def _pre_commit(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home)}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(ROOT),
            "corpus-validate",
            "--all-files",
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_precommit_hook_passes_clean_corpus_and_blocks_broken_one(
    git_repo: Path, tmp_path: Path
) -> None:
    shutil.copytree(EXAMPLES / "corpus", git_repo / "evals")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "corpus")
    home = tmp_path / "pre-commit-home"
    clean = _pre_commit(git_repo, home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "corpus validate" in clean.stdout and "Passed" in clean.stdout

    expected = git_repo / "evals/cases/refund-success/expected.yaml"
    expected.write_text(expected.read_text().replace("tier: fast", "tier: someday"))
    trace = git_repo / "evals/cases/inventory-zero-stock/trace.yaml"
    trace.write_text(trace.read_text().replace("schema_version: 1", "schema_version: 9"))
    git(git_repo, "add", "-A")
    broken = _pre_commit(git_repo, home)
    assert broken.returncode == 1
    assert "Failed" in broken.stdout
    assert "evals/cases/refund-success/expected.yaml" in broken.stdout
    assert "evals/cases/inventory-zero-stock/trace.yaml" in broken.stdout
