"""Hooks that see deletions: `validate --staged` reads the index, deleted paths included.

pre-commit hands hooks only files that still exist; the hook `corpus init` writes therefore
runs always and reads the staged change itself. Checked with the real pre-commit installed in a
real repository, with the plain git hook, and with `validate --staged` run directly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, GIT_ENV, ROOT, Cli, git

WAIVED = "inventory-zero-stock"


@pytest.fixture
def repo(git_repo: Path, cli: Cli) -> Path:
    """A repository whose corpus (evals/) `corpus init` made: two cases, a waiver, committed."""
    assert cli("init", "evals", cwd=git_repo).code == 0
    for name in ("refund-success", WAIVED):
        added = cli(
            "-C", git_repo / "evals", "add", EXAMPLES / f"incidents/{name}.json", "--id", name
        )
        assert added.code == 0, added.err
    expires = date.today() + timedelta(days=30)
    (git_repo / "evals/waivers/W-1.yaml").write_text(
        f"schema_version: 1\nid: W-1\ncase: {WAIVED}\nchecks: [tools.required]\n"
        f"reason: lands next release\nowner: shop\nexpires: '{expires}'\n",
        encoding="utf-8",
    )
    (git_repo / "README.md").write_text("# shop agent\n", encoding="utf-8")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "corpus")
    return git_repo


DELETIONS = {
    "a case's trace.yaml": (["evals/cases/refund-success/trace.yaml"], "[case.files]"),
    "a case a waiver names": ([f"evals/cases/{WAIVED}"], "[waiver.case]"),
    "corpus.yaml": (["evals/corpus.yaml"], "[corpus.deleted]"),
}


def _env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONPATH", None)
    return env


def _commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=repo, env=env, capture_output=True, text=True
    )


def test_real_pre_commit_with_the_init_hook_blocks_each_deletion(
    repo: Path, tmp_path: Path
) -> None:
    env = _env(tmp_path)
    subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )
    (repo / "README.md").write_text("# shop agent, v2\n", encoding="utf-8")
    git(repo, "add", "README.md")
    clean = _commit(repo, env, "docs only")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "corpus validate" in clean.stdout + clean.stderr  # it ran: always_run
    for what, (paths, rule) in DELETIONS.items():
        git(repo, "rm", "-r", "-q", *paths)
        blocked = _commit(repo, env, f"delete {what}")
        shown = blocked.stdout + blocked.stderr
        assert blocked.returncode != 0, (what, shown)
        assert rule in shown and "Failed" in shown, (what, shown)
        assert git(repo, "log", "-1", "--format=%s").strip() == "docs only", what
        git(repo, "reset", "-q", "--hard")


def test_plain_git_hook_blocks_each_deletion(repo: Path, tmp_path: Path) -> None:
    shutil.copy(ROOT / "hooks/pre-commit", repo / ".git/hooks/pre-commit")
    (repo / ".pre-commit-config.yaml").unlink()  # the plain hook alone
    git(repo, "commit", "-q", "--no-verify", "-am", "plain hook only")
    env = {**_env(tmp_path), "CORPUS": f"{sys.executable} -m corpus_tool", "PYTHONPATH": str(ROOT)}
    for what, (paths, rule) in DELETIONS.items():
        git(repo, "rm", "-r", "-q", *paths)
        blocked = _commit(repo, env, f"delete {what}")
        assert blocked.returncode != 0 and rule in blocked.stdout + blocked.stderr, what
        git(repo, "reset", "-q", "--hard")


def _staged(cli: Cli, repo: Path, *args: str) -> tuple[int, list[dict[str, str]]]:
    result = cli(*args, "validate", "--staged", "--format", "json", cwd=repo)
    assert result.code in (0, 1), result.err
    return result.code, json.loads(result.out)["findings"]


def test_staged_reads_the_index_not_the_work_tree(repo: Path, cli: Cli) -> None:
    git(repo, "rm", "-q", "--cached", "evals/cases/refund-success/trace.yaml")
    assert (repo / "evals/cases/refund-success/trace.yaml").is_file()  # still in the work tree
    code, findings = _staged(cli, repo)
    assert code == 1
    assert [(f["path"], f["rule"]) for f in findings] == [
        ("evals/cases/refund-success/trace.yaml", "case.files")
    ]


def test_staged_checks_the_staged_version_of_an_edit(repo: Path, cli: Cli) -> None:
    expected = repo / "evals/cases/refund-success/expected.yaml"
    good = expected.read_text(encoding="utf-8")
    expected.write_text(good.replace("tier: fast", "tier: someday"), encoding="utf-8")
    git(repo, "add", "-A")
    expected.write_text(good, encoding="utf-8")  # fixed in the work tree, not staged
    code, findings = _staged(cli, repo)
    assert code == 1 and findings[0]["path"] == "evals/cases/refund-success/expected.yaml"
    assert findings[0]["rule"] == "schema"


def test_staged_config_change_rechecks_the_cases_it_leaves_unchanged(repo: Path, cli: Cli) -> None:
    config = repo / "evals/corpus.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "scorers:\n  exact: difflib:SequenceMatcher\n",
        encoding="utf-8",
    )
    expected = repo / "evals/cases/refund-success/expected.yaml"
    doc = yaml.safe_load(expected.read_text(encoding="utf-8"))
    doc["expect"]["output"] = {"similar": {"reference": "Refund submitted.", "scorer": "exact"}}
    expected.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a case graded by a registered scorer")
    assert _staged(cli, repo) == (0, [])
    config.write_text(config.read_text(encoding="utf-8").split("scorers:")[0], encoding="utf-8")
    git(repo, "add", "evals/corpus.yaml")  # only corpus.yaml is staged: the case is unchanged
    code, findings = _staged(cli, repo)
    assert code == 1
    assert [(f["path"], f["rule"]) for f in findings] == [
        ("evals/cases/refund-success/expected.yaml", "scorer.unregistered")
    ]


def test_staged_deleting_a_whole_corpus_passes(repo: Path, cli: Cli) -> None:
    git(repo, "rm", "-r", "-q", "evals")
    assert _staged(cli, repo) == (0, [])


def test_staged_change_outside_corpora_checks_nothing_and_passes(repo: Path, cli: Cli) -> None:
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    git(repo, "add", "README.md")
    result = cli("validate", "--staged", cwd=repo)
    assert result.code == 0 and "0 files checked" in result.out


def test_staged_leftover_of_an_interrupted_write_is_named_as_such(repo: Path, cli: Cli) -> None:
    partial = repo / "evals/cases/.refund-success.q8w7e6.tmp"
    partial.mkdir()
    (partial / "trace.yaml").write_text("schema_version: 1\n", encoding="utf-8")
    git(repo, "add", "-A")
    code, findings = _staged(cli, repo)
    assert code == 1
    assert [f["rule"] for f in findings] == ["case.interrupted"]
    assert "rename the directory" not in findings[0]["message"]
    assert "git rm -r --cached evals/cases/.refund-success.q8w7e6.tmp" in findings[0]["message"]


def test_staged_works_before_the_first_commit(tmp_path: Path, cli: Cli) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shutil.copytree(EXAMPLES / "corpus", repo / "evals")
    git(repo, "add", "-A")
    code, findings = _staged(cli, repo)
    assert (code, findings) == (0, [])
    (repo / "evals/cases/refund-success/trace.yaml").write_text("schema_version: 9\n")
    git(repo, "add", "-A")
    code, findings = _staged(cli, repo)
    assert code == 1 and "schema.version" in {f["rule"] for f in findings}


def test_staged_refuses_paths_and_works_only_in_git(tmp_path: Path, repo: Path, cli: Cli) -> None:
    both = cli("validate", "--staged", "evals/corpus.yaml", cwd=repo)
    assert both.code == 2 and "give it no paths" in both.err
    outside = tmp_path / "plain"
    outside.mkdir()
    alone = cli("validate", "--staged", cwd=outside)
    assert alone.code == 2 and "not inside a git work tree" in alone.err


def test_staged_waiver_finds_its_unstaged_case_and_misses_a_case_the_index_lacks(
    repo: Path, cli: Cli
) -> None:
    """Only the staged cases are copied out of the index: a staged waiver's case is looked up
    there all the same (committed: found; only in the work tree: not in the commit)."""
    waiver = repo / "evals/waivers/W-1.yaml"
    text = waiver.read_text(encoding="utf-8")
    waiver.write_text(text.replace("lands next release", "lands the release after"))
    git(repo, "add", "-A")
    assert _staged(cli, repo) == (0, [])
    shutil.copytree(repo / "evals/cases" / WAIVED, repo / "evals/cases/not-staged")
    waiver.write_text(text.replace(f"case: {WAIVED}", "case: not-staged"), encoding="utf-8")
    git(repo, "add", "evals/waivers/W-1.yaml")
    code, findings = _staged(cli, repo)
    assert code == 1
    assert [(f["path"], f["rule"]) for f in findings] == [("evals/waivers/W-1.yaml", "waiver.case")]
