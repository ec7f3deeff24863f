"""The `repo` fixture: a real git repository with a corpus in `evals/`, committed on main."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV
from tests.select.affected_repo import GitCorpus, fill


@pytest.fixture
def repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[GitCorpus]:
    """A repository on `main` with five cases, tool modules, prompts and one waiver, committed."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.delenv("CORPUS_CACHE_DIR", raising=False)
    root = tmp_path / "repo"
    root.mkdir()
    corpus = GitCorpus(root, capsys)
    corpus.git("init", "-q", "-b", "main")
    fill(corpus)
    corpus.commit("initial corpus")
    monkeypatch.chdir(root / "evals")
    yield corpus
