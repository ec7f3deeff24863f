"""`corpus affected` and git: renames, deletions, the index, the worktree, bad revisions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.select.affected_repo import GitCorpus


def test_affected_case_rename_selects_the_new_id_and_reports_the_old(repo: GitCorpus) -> None:
    repo.git("mv", "evals/cases/order-lookup", "evals/cases/order-lookup-v2")
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--format", "json")
    assert result.json()["selected"] == ["order-lookup-v2"]
    reason = result.json()["reasons"]["order-lookup-v2"][0]
    assert reason["status"] == "renamed"
    assert reason["old_path"].startswith("evals/cases/order-lookup/")
    assert [r["id"] for r in result.json()["removed"]] == ["order-lookup"]


def test_affected_rename_follows_the_new_path(repo: GitCorpus) -> None:
    repo.config(unmapped="none")
    repo.commit("unmapped: none")
    repo.git("mv", "src/app.py", "src/tools/orders.py", "-f")
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--format", "json")
    assert result.json()["selected"] == ["order-lookup", "refund-ok"]
    assert result.json()["reasons"]["order-lookup"][0]["path"] == "src/tools/orders.py"


def test_affected_renamed_tool_module_still_selects_by_its_old_path(repo: GitCorpus) -> None:
    repo.config(unmapped="none")
    repo.commit("unmapped: none")
    repo.git("mv", "src/tools/refund.py", "src/tools/refunds.py")
    repo.commit()
    assert repo.affected("--base", "HEAD~1").ids == ["refund-ok", "refund-twice"]


def test_affected_deleted_tool_module_selects_its_callers(repo: GitCorpus) -> None:
    repo.config(unmapped="none")
    repo.commit("unmapped: none")
    repo.git("rm", "-q", "src/tools/orders.py")
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--format", "json")
    assert result.json()["selected"] == ["order-lookup", "refund-ok"]
    assert result.json()["reasons"]["refund-ok"][0]["status"] == "deleted"


def test_affected_deleted_case_is_reported_as_removed(repo: GitCorpus) -> None:
    repo.git("rm", "-q", "-r", "evals/cases/refund-twice")
    repo.commit()
    lines = repo.affected("--base", "HEAD~1")
    assert lines.out == ""
    assert "removed case refund-twice" in lines.err
    removed = repo.affected("--base", "HEAD~1", "--format", "json").json()["removed"]
    assert removed[0]["id"] == "refund-twice"
    assert removed[0]["tools"] == ["create_refund"]  # read from the merge base's trace
    text = repo.affected("--base", "HEAD~1", "--format", "text").out
    assert "removed: refund-twice" in text


def test_affected_staged_sees_the_index_only(repo: GitCorpus) -> None:
    repo.write("evals/cases/stock-zero/trace.yaml", "events: []\n")
    repo.git("add", "evals/cases/stock-zero/trace.yaml")
    repo.write("evals/cases/order-lookup/trace.yaml", "events: []\n")  # not staged
    assert repo.affected("--base", "HEAD", "--staged").ids == ["stock-zero"]
    assert repo.affected("--base", "HEAD").ids == []


def test_affected_staged_tool_rule_reads_staged_traces(repo: GitCorpus) -> None:
    repo.case("new-refund", ["create_refund"])
    repo.git("add", "-A")
    repo.write("src/tools/refund.py", "# v2\n")
    repo.git("add", "src/tools/refund.py")
    result = repo.affected("--base", "HEAD", "--staged")
    assert result.ids == ["new-refund", "refund-ok", "refund-twice"]


def test_affected_worktree_includes_unstaged_and_untracked(repo: GitCorpus) -> None:
    repo.write("evals/cases/order-lookup/trace.yaml", "events: []\n")
    repo.case("brand-new", ["get_order"])  # untracked
    result = repo.affected("--base", "HEAD", "--worktree")
    assert result.ids == ["brand-new", "order-lookup"]
    assert repo.affected("--base", "HEAD", "--staged").ids == []


def test_affected_worktree_reads_tools_from_unstaged_traces(repo: GitCorpus) -> None:
    repo.case("stock-zero", ["search_inventory", "create_refund"], ["inventory"])
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "stock-zero refunds now")
    repo.case("stock-zero", ["search_inventory"], ["inventory"])  # unstaged: no refund again
    repo.write("src/tools/refund.py", "# v2\n")
    result = repo.affected("--base", "HEAD", "--worktree", "--format", "json")
    # Selected for its own edit, but the worktree trace no longer calls create_refund.
    assert [r["rule"] for r in result.json()["reasons"]["stock-zero"]] == ["case file"]
    assert result.json()["reasons"]["refund-ok"][0]["path"] == "src/tools/refund.py"


def test_affected_worktree_deleted_case_is_removed(repo: GitCorpus) -> None:
    for name in ("trace.yaml", "expected.yaml"):
        (repo.root / "evals/cases/legacy-export" / name).unlink()
    result = repo.affected("--base", "HEAD", "--worktree", "--format", "json")
    assert [r["id"] for r in result.json()["removed"]] == ["legacy-export"]
    assert result.json()["selected"] == []


def test_affected_outside_a_git_repository_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    (tmp_path / "corpus.yaml").write_text("schema_version: 1\n")
    from corpus_tool.cli import main

    code = main(["-C", str(tmp_path), "affected", "--base", "main"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "not inside a git repository" in err


def test_affected_unknown_revision_exits_2_in_one_line(repo: GitCorpus) -> None:
    for args in (["--base", "no-such-branch"], ["--base", "HEAD", "--head", "nope~3"]):
        result = repo.affected(*args)
        assert result.code == 2
        assert result.err.count("\n") == 1
        assert "unknown revision" in result.err
        assert "Traceback" not in result.err


def test_affected_runs_as_a_subprocess_from_a_subdirectory(repo: GitCorpus) -> None:
    repo.write("src/tools/refund.py", "# v2\n")
    repo.commit()
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "corpus_tool", "affected", "--base", "HEAD~1"],
        cwd=repo.root / "evals" / "cases",
        env={**_env(), "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "refund-ok\nrefund-twice\n", "")


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_affected_corpus_at_the_repository_root(repo: GitCorpus, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo.git("mv", "evals/cases", "cases")
    repo.git("mv", "evals/waivers", "waivers")
    repo.git("mv", "evals/corpus.yaml", "corpus.yaml")
    repo.commit("corpus moves to the root")
    monkeypatch.chdir(repo.root)
    repo.write("cases/stock-zero/expected.yaml", "tier: full\n")
    repo.write("src/tools/orders.py", "# v2\n")
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--format", "pytest")
    assert result.out == (
        "--corpus . --corpus-case order-lookup --corpus-case refund-ok --corpus-case stock-zero\n"
    )


def test_affected_unknown_tier_exits_2(repo: GitCorpus) -> None:
    result = repo.affected("--base", "HEAD", "--tier", "nightly")
    assert result.code == 2
    assert "choose from fast, full, archive" in result.err


def test_affected_unrelated_histories_exit_2(repo: GitCorpus) -> None:
    repo.git("checkout", "-q", "--orphan", "elsewhere")
    repo.commit("a history of its own")
    result = repo.affected("--base", "main")
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert "no common ancestor" in result.err
