"""`affected` with hostile directory names and a cache that fails in every way it can.

Only valid case ids are ever printed (a directory named `x;cmd` must not reach a CI matrix or a
shell); every failure of the cache means "rebuild" and the run still exits per its selection.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_tool.select.cache import FILE_NAME
from corpus_tool.store.corpus import CASE_ID
from tests.conftest import ROOT
from tests.select.affected_repo import GitCorpus, trace_text

HOSTILE = ("x;touch pwned", "$(id)", "Bad Name", "a b", "--corpus-case=all")


@pytest.fixture
def hostile(repo: GitCorpus) -> GitCorpus:
    """Directories under cases/ whose names are no case ids, each with a trace, committed."""
    for name in HOSTILE:
        repo.write(f"evals/cases/{name}/trace.yaml", trace_text("x", ["create_refund"]))
    repo.commit("odd directories")
    return repo


def _valid(token: str) -> bool:
    return CASE_ID.fullmatch(token) is not None


@pytest.mark.parametrize("output", ["lines", "json", "pytest", "github-matrix", "text"])
@pytest.mark.parametrize("change", ["evals/corpus.yaml", "src/tools/refund.py", "cases"])
def test_affected_never_prints_an_invalid_case_id(
    output: str, change: str, hostile: GitCorpus
) -> None:
    if change == "cases":  # the odd directories themselves change
        for name in HOSTILE:
            hostile.write(f"evals/cases/{name}/trace.yaml", trace_text("y", ["get_order"]))
    else:
        hostile.write(change, (hostile.root / change).read_text() + "# changed\n")
    hostile.commit()
    result = hostile.affected("--base", "HEAD~1", "--format", output)
    assert result.code == 0, result.err
    if output == "json":  # paths of changed files may carry the names; ids never do
        doc = result.json()
        ids = [*doc["selected"], *doc["reasons"], *(r["id"] for r in doc["removed"])]
    elif output == "github-matrix":
        ids = [token for s in result.json()["include"] for token in s["cases"].split()]
    elif output == "pytest":
        words = shlex.split(result.out)
        ids = [word for flag, word in itertools.pairwise(words) if flag == "--corpus-case"]
    else:
        ids = (
            result.out.split() if output == "lines" else re.findall(r"^  (\S+)$", result.out, re.M)
        )
        for name in HOSTILE:
            assert name not in result.out and name not in result.err, (name, result.out)
    assert ids and all(_valid(token) for token in ids), ids


def _changed(repo: GitCorpus) -> None:
    repo.write("src/tools/refund.py", "# v2\n")
    repo.commit()


def test_unwritable_cache_place_warns_once_and_still_selects(
    repo: GitCorpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _changed(repo)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory would be\n")
    monkeypatch.setenv("CORPUS_CACHE_DIR", str(blocker))
    result = repo.affected("--base", "HEAD~1")
    assert result.code == 0
    assert result.ids == ["refund-ok", "refund-twice"]
    [warning] = result.err.splitlines()
    assert warning.startswith("corpus affected: warning: cannot save the cache in")


def test_a_checksummed_but_deeply_nested_cache_is_rebuilt(
    repo: GitCorpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _changed(repo)
    monkeypatch.setenv("CORPUS_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    body = "[" * 100_000 + "]" * 100_000
    digest = hashlib.sha256(body.encode()).hexdigest()
    (tmp_path / "cache" / FILE_NAME).write_text(f"sha256 {digest}\n{body}", encoding="utf-8")
    result = repo.affected("--base", "HEAD~1")
    assert (result.code, result.ids, result.err) == (0, ["refund-ok", "refund-twice"], "")
    text = (tmp_path / "cache" / FILE_NAME).read_text(encoding="utf-8")
    assert json.loads(text.partition("\n")[2])["format"] == 1  # rebuilt


def test_a_fifo_in_place_of_the_cache_does_not_hang(repo: GitCorpus, tmp_path: Path) -> None:
    _changed(repo)
    cache = tmp_path / "cache"
    cache.mkdir()
    os.mkfifo(cache / FILE_NAME)  # reading it would block until a writer came
    env = {**os.environ, "CORPUS_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "corpus_tool", "affected", "--base", "HEAD~1"],
        cwd=repo.root / "evals",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout.split()) == (0, ["refund-ok", "refund-twice"])


def test_temporary_files_of_killed_saves_are_removed(
    repo: GitCorpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _changed(repo)
    cache = tmp_path / "cache"
    monkeypatch.setenv("CORPUS_CACHE_DIR", str(cache))
    assert repo.affected("--base", "HEAD~1").code == 0  # a warm cache: nothing to parse next
    leftovers = [cache / f".{FILE_NAME}.{tag}.tmp" for tag in ("k1ll3d", "0ther")]
    for left in leftovers:  # what a run killed inside atomic_write leaves
        left.write_text("half a cache", encoding="utf-8")
    assert repo.affected("--base", "HEAD~1").code == 0
    assert sorted(p.name for p in cache.iterdir()) == [FILE_NAME]


def test_a_cache_inside_the_work_tree_is_not_a_change(
    repo: GitCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORPUS_CACHE_DIR", str(repo.root / ".corpus-cache"))
    repo.write("src/tools/refund.py", "# v2, not committed\n")  # every trace is read: a save
    first = repo.affected("--base", "HEAD", "--worktree")
    assert (repo.root / ".corpus-cache" / FILE_NAME).is_file()
    again = repo.affected("--base", "HEAD", "--worktree", "--explain")
    assert first.ids == again.ids == ["refund-ok", "refund-twice"], again.err
    assert not re.search(r"corpus-cache", again.err)
