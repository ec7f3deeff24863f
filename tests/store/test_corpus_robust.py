"""Stray directories under cases/: reported, never a stop for the other cases."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Cli
from tests.replay.conftest import copy_corpus

INCIDENT = json.loads((EXAMPLES / "incidents" / "refund-wrong-unit.json").read_text())


def test_validate_reports_a_directory_named_no_case_id(tmp_path: Path, cli: Cli) -> None:
    corpus = copy_corpus(tmp_path)
    shutil.copytree(corpus / "cases/refund-success", corpus / "cases/Bad Name")
    result = cli("-C", corpus, "validate")
    assert result.code == 1
    assert "cases/Bad Name:1: [case.id] invalid case id 'Bad Name'" in result.out


def test_check_replays_the_other_cases_next_to_a_stray_directory(
    tmp_path: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = copy_corpus(tmp_path)
    (corpus / "cases/Bad Name").mkdir()
    result = cli("-C", corpus, "check", "--format", "json")
    assert result.code == 1, result.err
    verdicts = {c["case"]: c["verdict"] for c in json.loads(result.out)["cases"]}
    assert verdicts["Bad Name"] == "error" and verdicts["refund-success"] == "passed"


def test_forget_unlinks_a_symlinked_case_and_keeps_its_target(
    tmp_path: Path, cli: Cli, corpus_dir: Path
) -> None:
    doc = json.loads(json.dumps(INCIDENT))
    doc["input"]["userMessage"] += " call 138 1234 5678"
    incident = tmp_path / "incident.json"
    incident.write_text(json.dumps(doc), encoding="utf-8")
    assert cli("-C", corpus_dir, "add", incident, "--id", "a").code == 0
    outside = tmp_path / "outside"
    (corpus_dir / "cases/a").rename(outside)
    (corpus_dir / "cases/a").symlink_to(outside)
    result = cli("-C", corpus_dir, "forget", "13812345678")
    assert result.code == 0, result.err
    assert "removed case a" in result.out
    assert not (corpus_dir / "cases/a").exists() and (outside / "trace.yaml").is_file()


@pytest.mark.parametrize("command", ["validate", "check"])
def test_cases_that_is_a_file_is_a_layout_finding(command: str, tmp_path: Path, cli: Cli) -> None:
    corpus = copy_corpus(tmp_path)
    shutil.rmtree(corpus / "cases")
    (corpus / "cases").write_text("oops\n")
    result = cli("-C", corpus, command)
    assert result.code == 1, result.err
    assert "cases:1: [corpus.layout] cases is not a directory" in result.out


def test_a_case_file_linked_outside_the_corpus_is_never_read(tmp_path: Path, cli: Cli) -> None:
    corpus = copy_corpus(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("token-7f3a9c\n")
    trace = corpus / "cases/refund-success/trace.yaml"
    trace.unlink()
    trace.symlink_to(secret)
    result = cli("-C", corpus, "validate")
    assert result.code == 1
    assert f"[parse] is a symlink to {secret}, outside the corpus" in result.out
    checked = cli("-C", corpus, "check", "--format", "json")
    verdicts = {c["case"]: c["verdict"] for c in json.loads(checked.out)["cases"]}
    assert verdicts["refund-success"] == "error" and verdicts["inventory-zero-stock"] == "passed"
    assert "token-7f3a9c" not in result.out + checked.out + checked.err


def test_add_force_over_a_file_named_like_the_case_is_one_line(corpus_dir: Path, cli: Cli) -> None:
    (corpus_dir / "cases/stray").write_text("notes\n")
    incident = EXAMPLES / "incidents/refund-success.json"
    result = cli("-C", corpus_dir, "add", incident, "--id", "stray", "--force")
    assert result.code == 2
    assert "stray exists and is not a case directory; move it aside" in result.err
    assert (corpus_dir / "cases/stray").read_text() == "notes\n"


def test_add_when_cases_is_a_file_is_one_line(corpus_dir: Path, cli: Cli) -> None:
    shutil.rmtree(corpus_dir / "cases")
    (corpus_dir / "cases").write_text("oops\n")
    result = cli("-C", corpus_dir, "add", EXAMPLES / "incidents/refund-success.json")
    assert result.code == 2
    assert "cases: cannot write here" in result.err and result.err.count("\n") == 1
    assert (corpus_dir / "cases").read_text() == "oops\n"
