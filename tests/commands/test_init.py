"""`corpus init`: creates what is missing, never overwrites, idempotent."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli


def test_init_creates_layout_and_hook(tmp_path: Path, cli: Cli) -> None:
    result = cli("init", tmp_path / "evals")
    assert result.code == 0
    for part in ("corpus.yaml", "cases", "waivers"):
        assert (tmp_path / "evals" / part).exists()
    assert "corpus-validate" in (tmp_path / "evals/.pre-commit-config.yaml").read_text()
    assert cli("-C", tmp_path / "evals", "validate").code == 0


def test_init_is_idempotent_and_keeps_user_files(tmp_path: Path, cli: Cli) -> None:
    assert cli("init", tmp_path).code == 0
    (tmp_path / "corpus.yaml").write_text("schema_version: 1\nname: mine\n")
    again = cli("init", tmp_path)
    assert again.code == 0
    assert (tmp_path / "corpus.yaml").read_text() == "schema_version: 1\nname: mine\n"
    assert "kept" in again.out and "created" not in again.out


def test_init_in_git_repo_puts_hook_at_repo_root(git_repo: Path, cli: Cli) -> None:
    assert cli("init", "evals", cwd=git_repo).code == 0
    assert (git_repo / ".pre-commit-config.yaml").is_file()
    assert not (git_repo / "evals/.pre-commit-config.yaml").exists()


def test_init_prints_snippet_when_config_exists(tmp_path: Path, cli: Cli) -> None:
    existing = (
        "repos:\n  - repo: https://example.invalid/other\n    rev: v1\n    hooks: [{id: x}]\n"
    )
    (tmp_path / ".pre-commit-config.yaml").write_text(existing)
    result = cli("init", tmp_path)
    assert result.code == 0
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == existing
    assert "add this under its `repos:` list" in result.out and "id: corpus-validate" in result.out


def test_init_refuses_a_file_as_directory(tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "f").write_text("x")
    result = cli("init", tmp_path / "f")
    assert result.code == 2 and "not a directory" in result.err


def test_init_under_a_file_is_one_line(tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "f").write_text("x")
    result = cli("init", tmp_path / "f" / "corpus")
    assert result.code == 2
    assert "cannot create it" in result.err and result.err.count("\n") == 1
