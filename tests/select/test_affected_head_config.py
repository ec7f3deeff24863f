"""`corpus affected` checks the HEAD corpus.yaml against its schema: a bad one names its place."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Cli, git


@pytest.fixture
def history(git_repo: Path) -> Path:
    """A repository whose evals/ holds the example corpus, committed."""
    shutil.copytree(EXAMPLES / "corpus", git_repo / "evals")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "corpus")
    return git_repo


def test_affected_refuses_a_head_corpus_yaml_the_schema_refuses(cli: Cli, history: Path) -> None:
    """The compiled check only ever says "valid": a bad entrypoint still names its place."""
    config = history / "evals/corpus.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("examples.refund_agent.agent:run", "not an entrypoint"))
    git(history, "commit", "-q", "-am", "break the entrypoint")
    code, out, err = cli("-C", history / "evals", "affected", "--base", "HEAD~1")
    assert (code, out) == (2, "")
    assert "corpus.yaml" in err and "$.agent.entrypoint: 'not an entrypoint' does not match" in err
