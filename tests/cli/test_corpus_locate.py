"""Finding the corpus: -C, walking up, else the one corpus.yaml the git repository tracks."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli, git


def _tracked_corpus(cli: Cli, repo: Path, where: str) -> Path:
    assert cli("init", repo / where).code == 0
    git(repo, "add", where)
    return repo / where


def test_commands_at_the_repository_root_use_the_tracked_corpus(git_repo: Path, cli: Cli) -> None:
    _tracked_corpus(cli, git_repo, "evals")
    git(git_repo, "commit", "-q", "-m", "corpus")
    (git_repo / "src").mkdir()
    for cwd in (git_repo, git_repo / "src"):
        done = cli("validate", "--format", "json", cwd=cwd)
        assert done.code == 0 and '"checked": 1' in done.out  # evals/corpus.yaml
    affected = cli("affected", "--base", "HEAD", "--worktree", cwd=git_repo)
    assert affected.code == 0, affected.err
    keyed = cli("keygen", "--show-id", cwd=git_repo)
    assert keyed.code == 0 and keyed.out.startswith("k-")


def test_added_but_uncommitted_corpus_counts_as_tracked(git_repo: Path, cli: Cli) -> None:
    _tracked_corpus(cli, git_repo, "evals")  # staged, not committed
    assert cli("validate", cwd=git_repo).code == 0


def test_an_untracked_corpus_yaml_is_not_guessed(git_repo: Path, cli: Cli) -> None:
    assert cli("init", git_repo / "evals").code == 0  # not added to git
    done = cli("validate", cwd=git_repo)
    assert done.code == 2 and "-C DIR" in done.err and done.err.count("\n") == 1


def test_several_tracked_corpora_are_listed_as_a_usage_error(git_repo: Path, cli: Cli) -> None:
    _tracked_corpus(cli, git_repo, "evals")
    _tracked_corpus(cli, git_repo, "services/billing/evals")
    done = cli("validate", cwd=git_repo / "services")
    assert done.code == 2 and done.err.count("\n") == 1
    assert "../evals/corpus.yaml" in done.err and "billing/evals/corpus.yaml" in done.err
    assert "-C DIR" in done.err
    # walking up still decides where it can
    assert cli("validate", cwd=git_repo / "services/billing/evals/cases").code == 0


def test_a_deleted_tracked_corpus_yaml_is_not_used(git_repo: Path, cli: Cli) -> None:
    root = _tracked_corpus(cli, git_repo, "evals")
    git(git_repo, "commit", "-q", "-m", "corpus")
    (root / "corpus.yaml").unlink()
    done = cli("validate", cwd=git_repo)
    assert done.code == 2 and "no corpus.yaml" in done.err


def test_outside_git_the_message_says_what_to_do(tmp_path: Path, cli: Cli) -> None:
    done = cli("validate", cwd=tmp_path)
    assert done.code == 2 and "corpus init" in done.err and done.err.count("\n") == 1
