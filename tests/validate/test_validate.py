"""`corpus validate`: every problem of every file, with lines, in one run."""

from __future__ import annotations

import json
import shutil
from datetime import date, timedelta
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Cli


@pytest.fixture
def filled(corpus_dir: Path, cli: Cli) -> Path:
    """A corpus with two cases."""
    for name in ("refund-success", "inventory-zero-stock"):
        assert (
            cli("-C", corpus_dir, "add", EXAMPLES / f"incidents/{name}.json", "--id", name).code
            == 0
        )
    return corpus_dir


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_validate_example_corpus_is_clean(cli: Cli) -> None:
    result = cli("-C", EXAMPLES / "corpus", "validate")
    assert result.code == 0, result.out
    assert "no problems" in result.out


def test_validate_reports_both_broken_files_with_lines(filled: Path, cli: Cli) -> None:
    trace = filled / "cases/refund-success/trace.yaml"
    expected = filled / "cases/inventory-zero-stock/expected.yaml"
    _edit(trace, "tool: get_order", "tool: 42")
    _edit(expected, "tier: fast", "tier: sometimes")
    result = cli("validate", cwd=filled)
    assert result.code == 1
    lines = result.out.splitlines()
    trace_at = f"cases/refund-success/trace.yaml:{_line_of(trace, 'tool: 42')}:"
    expected_at = (
        f"cases/inventory-zero-stock/expected.yaml:{_line_of(expected, 'tier: sometimes')}:"
    )
    assert any(line.startswith(trace_at) for line in lines), result.out
    assert any(line.startswith(expected_at) and "$.tier" in line for line in lines), result.out
    # the renamed tool also contradicts the model's request for get_order
    assert any(line.startswith(trace_at) and "[completeness.consistency]" in line for line in lines)
    assert "3 problems" in lines[-1]


def test_validate_json_format_lists_findings(filled: Path, cli: Cli) -> None:
    _edit(filled / "cases/refund-success/expected.yaml", "status: active", "status: maybe")
    result = cli("-C", filled, "validate", "--format", "json")
    assert result.code == 1
    report = json.loads(result.out)
    assert report["checked"] == 5
    [finding] = report["findings"]
    assert finding["path"].endswith("cases/refund-success/expected.yaml")
    assert (
        finding["json_path"] == "$.status" and finding["rule"] == "schema" and finding["line"] > 0
    )


def test_validate_unparsable_yaml_is_a_finding_not_a_stop(filled: Path, cli: Cli) -> None:
    (filled / "cases/refund-success/trace.yaml").write_text("events: [unclosed\n")
    _edit(filled / "cases/inventory-zero-stock/expected.yaml", "owner: unassigned", "owner: ''")
    result = cli("-C", filled, "validate")
    assert result.code == 1
    assert "[parse]" in result.out and "not valid YAML" in result.out
    assert "inventory-zero-stock/expected.yaml" in result.out


def test_validate_paths_checks_only_their_cases(filled: Path, cli: Cli, tmp_path: Path) -> None:
    _edit(filled / "cases/inventory-zero-stock/expected.yaml", "tier: fast", "tier: never")
    good = cli("validate", filled / "cases/refund-success/trace.yaml", cwd=tmp_path)
    assert good.code == 0, good.out
    bad = cli("validate", filled / "cases/inventory-zero-stock/trace.yaml", cwd=tmp_path)
    assert bad.code == 1 and "tier" in bad.out


def test_validate_paths_find_each_corpus_by_walking_up(tmp_path: Path, cli: Cli) -> None:
    for name in ("a", "b"):
        shutil.copytree(EXAMPLES / "corpus", tmp_path / name / "evals")
    _edit(tmp_path / "b/evals/cases/refund-success/expected.yaml", "tier: fast", "tier: x")
    result = cli(
        "validate",
        "a/evals/cases/refund-success/trace.yaml",
        "b/evals/cases/refund-success/expected.yaml",
        cwd=tmp_path,
    )
    assert result.code == 1
    assert result.out.startswith("b/evals/cases/refund-success/expected.yaml:")
    assert "1 problem in 4 files checked" in result.out


def test_validate_path_outside_any_corpus_exits_2(tmp_path: Path, cli: Cli) -> None:
    stray = tmp_path / "cases/x/trace.yaml"
    stray.parent.mkdir(parents=True)
    stray.write_text("{}")
    result = cli("validate", stray, cwd=tmp_path)
    assert result.code == 2 and "no corpus.yaml" in result.err


def test_validate_missing_case_file(filled: Path, cli: Cli) -> None:
    (filled / "cases/refund-success/expected.yaml").unlink()
    result = cli("-C", filled, "validate")
    assert result.code == 1 and "has no expected.yaml" in result.out


# one hand edit of a committed case -> the finding a reviewer sees: (file, old, new, rule, message)
HAND_EDITS = {
    "id-mismatch": ("expected.yaml", "id: refund-success", "id: other", "case.id",
                    "does not match its directory"),
    "duplicate-seq": ("trace.yaml", "- seq: 3\n", "- seq: 1\n", "completeness.seq",
                      "seq 1 appears twice"),
    "newer-schema": ("trace.yaml", "schema_version: 1", "schema_version: 7", "schema.version",
                     "upgrade corpus-tool"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HAND_EDITS))
def test_validate_reports_a_hand_edit(filled: Path, cli: Cli, name: str) -> None:
    file, old, new, rule, needle = HAND_EDITS[name]
    _edit(filled / "cases/refund-success" / file, old, new)
    result = cli("validate", cwd=filled)
    assert result.code == 1
    [line] = [ln for ln in result.out.splitlines() if f"[{rule}]" in ln]
    assert line.startswith(f"cases/refund-success/{file}:") and needle in line


def _waiver(root: Path, wid: str, **fields: object) -> Path:
    body = {
        "schema_version": 1,
        "id": wid,
        "kind": "check",
        "case": "refund-success",
        "checks": ["tools.required"],
        "reason": "fix ships next release",
        "owner": "payments",
        "expires": str(date.today() + timedelta(days=30)),
        **fields,
    }
    path = root / "waivers" / f"{wid}.yaml"
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in body.items()) + "\n")
    return path


def test_validate_waivers(filled: Path, cli: Cli) -> None:
    _waiver(filled, "W-1")
    assert cli("-C", filled, "validate").code == 0
    _waiver(filled, "W-2", expires="2020-01-01")
    _waiver(filled, "W-3", case="no-such-case")
    _waiver(filled, "W-4", expires=str(date.today() + timedelta(days=400)))
    _waiver(filled, "W-5", id="W-other")
    (filled / "waivers/W-6.yaml").write_text("schema_version: 1\nid: W-6\nkind: check\n")
    _waiver(filled, "W-7", checks=["tools.requried"])
    result = cli("-C", filled, "validate")
    assert result.code == 1
    out = result.out
    assert "W-2.yaml" in out and "[waiver.expired]" in out
    assert "W-3.yaml" in out and "[waiver.case]" in out
    assert "W-4.yaml" in out and "[waiver.max_days]" in out
    assert "W-5.yaml" in out and "[waiver.id]" in out
    assert "W-6.yaml" in out and "'reason' is a required property" in out
    assert "W-7.yaml" in out and "[waiver.checks]" in out and "unknown check tools.requried" in out
    assert "W-1.yaml" not in out


def test_validate_broken_corpus_yaml_is_a_finding(filled: Path, cli: Cli) -> None:
    _edit(filled / "corpus.yaml", "unmapped: all", "unmapped: some")
    result = cli("-C", filled, "validate")
    assert result.code == 1 and "corpus.yaml:" in result.out and "$.impact.unmapped" in result.out


def test_validate_accepts_unquoted_dates_as_design_shows_them(filled: Path, cli: Cli) -> None:
    expires = date.today() + timedelta(days=30)
    (filled / "waivers/W-8.yaml").write_text(
        "schema_version: 1\nid: W-8\ncase: refund-success\nchecks: [tools.required]\n"
        f"reason: lands next release\nowner: payments\nexpires: {expires}\n"
    )
    result = cli("-C", filled, "validate")
    assert result.code == 0, result.out
    assert result.out.endswith("files checked, no problems\n")
    # the waiver was read and checked: a date that is not one is reported on its line
    waiver = filled / "waivers/W-8.yaml"
    waiver.write_text(waiver.read_text().replace(f"expires: {expires}", "expires: 2026-13-45"))
    result = cli("-C", filled, "validate")
    assert result.code == 1 and "W-8.yaml:7: [waiver.expires]" in result.out
