"""Files and directories corpus-tool writes get the mode the user's umask gives, like any tool."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, GIT_ENV, ROOT, TEST_KEY


def _corpus(mask: int, cwd: Path, *args: str | Path) -> None:
    env = {**os.environ, **GIT_ENV, "CORPUS_REDACTION_KEY": TEST_KEY, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "corpus_tool", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.umask(mask),  # the user's umask, in the process that writes
    )
    assert done.returncode in (0, 1), done.stderr


def _with_agent(corpus: Path, root: Path) -> None:
    """An entrypoint in `root`, where replay imports it from (any answer will do: the results
    file is written either way)."""
    (root / "stub_agent.py").write_text(
        "def run(case_input, rt):\n    return {'status': 'failed', 'output': None}\n", "utf-8"
    )
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("# entrypoint: my_agent.main:run", "entrypoint: stub_agent:run"))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(
    ("mask", "file_mode", "dir_mode"), [(0o022, 0o644, 0o755), (0o027, 0o640, 0o750)]
)
def test_written_files_follow_the_umask(
    tmp_path: Path, mask: int, file_mode: int, dir_mode: int
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    _corpus(mask, repo, "init", "evals")
    corpus = repo / "evals"
    _corpus(mask, corpus, "add", EXAMPLES / "incidents/refund-success.json", "--id", "r1")
    _corpus(mask, corpus, "mv", "r1", "r2")
    _with_agent(corpus, repo)
    _corpus(mask, corpus, "check", "--results", tmp_path / "results.json")
    for path in (
        corpus / "corpus.yaml",
        repo / ".pre-commit-config.yaml",
        corpus / "cases/r2/trace.yaml",
        corpus / "cases/r2/expected.yaml",
        tmp_path / "results.json",
    ):
        assert _mode(path) == file_mode, (path, oct(_mode(path)))
    assert _mode(corpus / "cases/r2") == dir_mode


def test_a_rewritten_file_keeps_the_mode_it_had(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    results.write_text("{}", encoding="utf-8")
    results.chmod(0o600)  # the user keeps results private
    corpus = tmp_path / "corpus"
    _corpus(0o022, tmp_path, "init", corpus)
    _with_agent(corpus, corpus)
    _corpus(0o022, corpus, "check", "--results", results)
    assert '"command": "check"' in results.read_text(encoding="utf-8")
    assert _mode(results) == 0o600
