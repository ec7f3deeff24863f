"""`corpus init --install-hook`: the real pre-commit installs the hook; git then runs it."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_tool.commands.init import init
from corpus_tool.errors import UsageError
from tests.conftest import EXAMPLES, GIT_ENV, TEST_KEY, Cli, git

BIN = Path(sys.executable).parent  # this environment's `corpus` and `pre-commit`
EMAIL = "jane.doe@example.com"


def _run(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **GIT_ENV,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(home),
        "CORPUS_REDACTION_KEY": TEST_KEY,
    }
    env.pop("PYTHONPATH", None)
    return subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, timeout=300)


def test_install_hook_blocks_a_planted_email_and_passes_a_clean_case(
    git_repo: Path, tmp_path: Path
) -> None:
    home = tmp_path / "pre-commit-home"
    done = _run(git_repo, home, "corpus", "init", "evals", "--install-hook")
    assert done.returncode == 0, done.stderr
    assert "pre-commit install" in done.stdout
    assert "pre-commit" in (git_repo / ".git/hooks/pre-commit").read_text()

    incident = EXAMPLES / "incidents" / "refund-success.json"
    added = _run(git_repo, home, "corpus", "-C", "evals", "add", str(incident), "--id", "r")
    assert added.returncode == 0, added.stderr
    git(git_repo, "add", "-A")
    clean = _run(git_repo, home, "git", "commit", "-q", "-m", "case r")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert git(git_repo, "log", "--format=%s", "-1").strip() == "case r"

    expected = git_repo / "evals/cases/r/expected.yaml"
    expected.write_text(expected.read_text() + f"# reported by {EMAIL}\n")
    blocked = _run(git_repo, home, "git", "commit", "-q", "-am", "who reported it")
    said = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0
    assert "[redaction.email]" in said and "evals/cases/r/expected.yaml" in said
    assert EMAIL not in said  # the hook never prints the value it found
    assert git(git_repo, "log", "--format=%s", "-1").strip() == "case r"
    assert EMAIL not in git(git_repo, "show", "HEAD:evals/cases/r/expected.yaml")


def test_init_without_the_flag_says_to_run_pre_commit_install(git_repo: Path) -> None:
    out = io.StringIO()
    assert init(git_repo / "evals", out) == 0
    assert f"next: run `pre-commit install` in {git_repo}" in out.getvalue()
    assert not (git_repo / ".git/hooks/pre-commit").exists()


def test_install_hook_without_pre_commit_is_one_line_and_writes_nothing(git_repo: Path) -> None:
    with pytest.raises(UsageError) as refused:
        init(git_repo / "evals", io.StringIO(), install_hook=True, pre_commit=())
    message = str(refused.value)
    assert "pre-commit is not installed" in message and "pip install pre-commit" in message
    assert "\n" not in message
    assert not (git_repo / "evals").exists() and not (git_repo / ".pre-commit-config.yaml").exists()


def test_install_hook_outside_git_says_git_init(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as refused:
        init(tmp_path / "evals", io.StringIO(), install_hook=True, pre_commit=("pre-commit",))
    assert "git init" in str(refused.value) and not (tmp_path / "evals").exists()


def test_install_hook_through_the_cli_without_pre_commit_exits_2(
    git_repo: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("corpus_tool.cli.writing._pre_commit_command", lambda: ())
    done = cli("init", "evals", "--install-hook", cwd=git_repo)
    assert done.code == 2 and done.err.count("\n") == 1 and "pip install pre-commit" in done.err
    assert not (git_repo / "evals").exists()
