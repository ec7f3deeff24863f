"""Fixtures shared by the whole suite: the CLI as a user drives it, corpora, git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from corpus_tool.cli import main
from tests.slow_tests import SLOW

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass(frozen=True)
class Result:
    """What a user sees of one `corpus` run."""

    code: int
    out: str
    err: str

    def __iter__(self) -> Iterator[int | str]:
        """`code, out, err = cli(...)`."""
        return iter((self.code, self.out, self.err))


Cli = Callable[..., Result]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """Run `corpus ARGS...` in-process from a given directory; returns code, stdout, stderr."""

    def run(*args: str | Path, cwd: Path | None = None) -> Result:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:  # argparse usage errors
            code = int(exit_.code or 0)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def corpus_dir(tmp_path: Path, cli: Cli) -> Path:
    """An empty corpus made by `corpus init`."""
    root = tmp_path / "corpus"
    assert cli("init", root).code == 0
    return root


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` with a pinned author and no user configuration."""
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A fresh git repository with one empty commit on `main`."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "commit", "-q", "--allow-empty", "-m", "root")
    return repo


TEST_KEY = "test-key-0123456789abcdef0123456789abcdef"


@pytest.fixture
def example_results(cli: Cli, tmp_path: Path) -> Path:
    """The results document of a real replay of a copy of the example corpus (at
    `tmp_path/examples`)."""
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES / "corpus", root)
    path = tmp_path / "results.json"
    assert cli("-C", root, "replay", "--results", path).code == 0
    return path


@pytest.fixture
def committed_examples(git_repo: Path) -> Path:
    """A repository whose evals/ holds the example corpus, committed."""
    shutil.copytree(EXAMPLES / "corpus", git_repo / "evals")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "corpus")
    return git_repo


@pytest.fixture(autouse=True)
def redaction_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs with a known redaction key; tests of the keyless path delete it."""
    monkeypatch.setenv("CORPUS_REDACTION_KEY", TEST_KEY)
    return TEST_KEY


@pytest.fixture(autouse=True)
def cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test has a cache directory of its own: no test sees findings another one left.

    And the file-stats table enters a file written any time before the run (not only 2 s
    before, the real margin against a change in the same clock tick, which
    tests/validate/test_file_stats.py tests): the suite writes its corpora moments before
    their runs, and its warm runs must take the unread path a user's do."""
    where = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("CORPUS_CACHE_DIR", str(where))
    monkeypatch.setattr("corpus_tool.validate.stats.RACY_NS", 0)
    return where


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout (built once per test session)."""
    from tests.installed import build_wheel

    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def installed_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A fresh venv with the wheel of this checkout installed."""
    from tests.installed import venv_with

    return venv_with(wheel, tmp_path_factory.mktemp("installed"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the measured slow tests (tests/slow_tests.py), so `-m "not slow"` is the fast lane."""
    for item in items:
        if item.nodeid.split("[", 1)[0] in SLOW:
            item.add_marker(pytest.mark.slow)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Where PYTHONDONTWRITEBYTECODE is set, an editable install leaves corpus_tool without
    bytecode, and every replay worker and `corpus` process the suite starts compiles it from
    source again. Compile it once, in the controller, as `pip install .` does for a user."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not hasattr(session.config, "workerinput"):
        import compileall

        compileall.compile_dir(ROOT / "corpus_tool", quiet=1)
