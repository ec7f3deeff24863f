"""`corpus affected` and git submodules: a bumped submodule is a change like any file.

A case whose directory is a submodule (or holds one) is selected when the submodule's commit
moves; a submodule elsewhere is matched by the impact rules at its path.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.select.affected_repo import GitCorpus, expected_text, trace_text


def _git(where: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args],
        cwd=where,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def _upstream(repo: GitCorpus, name: str, case_id: str | None = None) -> Path:
    """A repository to use as a submodule: a whole case when `case_id` is given."""
    where = repo.root.parent / name
    where.mkdir()
    _git(where, "init", "-q", "-b", "main")
    if case_id is not None:
        (where / "trace.yaml").write_text(trace_text(case_id, ["get_order"]), "utf-8")
        (where / "expected.yaml").write_text(expected_text(case_id, [], "fast"), "utf-8")
    else:
        (where / "data.txt").write_text("v1\n", "utf-8")
    _git(where, "add", "-A")
    _git(where, "commit", "-q", "-m", "v1")
    return where


def _add(repo: GitCorpus, upstream: Path, path: str) -> None:
    _git(repo.root, "submodule", "-q", "add", str(upstream), path)
    repo.commit(f"submodule at {path}")


def _bump(repo: GitCorpus, path: str) -> None:
    """A new commit inside the submodule's checkout, recorded by the superproject."""
    inside = repo.root / path
    with (inside / "bumped.txt").open("a", encoding="utf-8") as out:
        out.write("more\n")
    _git(inside, "add", "-A")
    _git(inside, "commit", "-q", "-m", "bump")
    repo.commit(f"bump {path}")


def _hide(repo: GitCorpus, path: str) -> None:
    """What a change could write into .gitmodules to hide the bump from a plain `git diff`."""
    _git(repo.root, "config", "-f", ".gitmodules", f"submodule.{path}.ignore", "all")
    repo.commit("ignore the submodule")


def test_affected_selects_a_case_that_is_a_submodule_when_it_is_bumped(repo: GitCorpus) -> None:
    _add(repo, _upstream(repo, "shared-case", "shared-case"), "evals/cases/shared-case")
    base = repo.git("rev-parse", "HEAD").strip()
    _bump(repo, "evals/cases/shared-case")
    assert repo.affected("--base", base).ids == ["shared-case"]
    text = repo.affected("--base", base, "--format", "text", "--explain").out
    assert "  shared-case\n" in text
    assert "evals/cases/shared-case (modified): case submodule" in text
    found = repo.affected("--base", base, "--format", "json").json()
    assert found["selected"] == ["shared-case"]
    assert found["reasons"]["shared-case"][0]["path"] == "evals/cases/shared-case"
    assert found["reasons_for_all"] == []  # not an unmapped file that selects everything


def test_affected_selects_a_case_holding_a_submodule_even_if_gitmodules_hides_it(
    repo: GitCorpus,
) -> None:
    _add(repo, _upstream(repo, "fixtures"), "evals/cases/refund-ok/fixtures")
    _hide(repo, "evals/cases/refund-ok/fixtures")
    base = repo.git("rev-parse", "HEAD").strip()
    _bump(repo, "evals/cases/refund-ok/fixtures")
    found = repo.affected("--base", base, "--format", "json").json()
    assert found["selected"] == ["refund-ok"]
    assert found["reasons"]["refund-ok"][0]["path"] == "evals/cases/refund-ok/fixtures"
    assert "refund-ok" in repo.affected("--base", base, "--format", "text").out


def test_affected_maps_a_submodule_elsewhere_by_the_impact_rules(repo: GitCorpus) -> None:
    repo.config(unmapped="none")
    repo.commit("unmapped: none")
    _add(repo, _upstream(repo, "inventory"), "src/inventory/vendor")
    _hide(repo, "src/inventory/vendor")
    base = repo.git("rev-parse", "HEAD").strip()
    _bump(repo, "src/inventory/vendor")
    assert repo.affected("--base", base).ids == ["stock-zero"]  # rule: src/inventory -> tag


def test_affected_reports_a_removed_submodule_case(repo: GitCorpus) -> None:
    _add(repo, _upstream(repo, "shared-case", "shared-case"), "evals/cases/shared-case")
    _git(repo.root, "rm", "-q", "evals/cases/shared-case")
    repo.commit("drop the shared case")
    found = repo.affected("--base", "HEAD~1", "--format", "json").json()
    assert "shared-case" not in found["selected"]
    assert [r["id"] for r in found["removed"]] == ["shared-case"]


def test_affected_staged_sees_a_staged_submodule_bump(repo: GitCorpus) -> None:
    _add(repo, _upstream(repo, "shared-case", "shared-case"), "evals/cases/shared-case")
    inside = repo.root / "evals/cases/shared-case"
    (inside / "bumped.txt").write_text("more\n", "utf-8")
    _git(inside, "add", "-A")
    _git(inside, "commit", "-q", "-m", "bump")
    _git(repo.root, "add", "evals/cases/shared-case")
    assert repo.affected("--base", "HEAD", "--staged").ids == ["shared-case"]
