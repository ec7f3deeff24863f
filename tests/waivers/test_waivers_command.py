"""`corpus waivers` and `corpus status` on a copy of the example corpus, as a user runs them."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import pytest
import yaml

from tests.conftest import Cli, git
from tests.replay.conftest import copy_corpus


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = copy_corpus(tmp_path)
    git(root, "init", "-q")
    git(root, "config", "user.name", "Jane Reviewer")
    return root


def test_waivers_new_writes_a_valid_waiver_that_waives(cli: Cli, corpus: Path) -> None:
    (corpus / "waivers" / "W-0001.yaml").unlink()
    config = corpus / "corpus.yaml"  # waivers.max_days unset: 90 days
    config.write_text(config.read_text().replace("waivers:\n  max_days: 27000\n", ""), "utf-8")
    done = cli(
        "-C",
        corpus,
        "waivers",
        "new",
        "refund-wrong-unit",
        "--check",
        "replay.divergence",
        "--reason",
        "prompt changed on purpose",
        "--ticket",
        "PAY-1",
        cwd=corpus,
    )
    assert done.code == 0, done.err
    path = corpus / "waivers" / "W-0001.yaml"
    assert "wrote waivers/W-0001.yaml" in done.out and "git add waivers/W-0001.yaml" in done.out
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert doc["owner"] == "Jane Reviewer", "the owner comes from git config"
    assert doc["expires"] == (date.today() + timedelta(days=90)).isoformat()
    assert doc["created"] == date.today().isoformat() and doc["ticket"] == "PAY-1"
    assert cli("-C", corpus, "validate").code == 0
    checked = cli("-C", corpus, "check")
    assert checked.code == 0 and "WAIVED refund-wrong-unit" in checked.out
    again = cli(
        "-C",
        corpus,
        "waivers",
        "new",
        "refund-success",
        "--check",
        "all",
        "--reason",
        "r",
        "--owner",
        "team",
        "--format",
        "json",
    )
    assert json.loads(again.out)["waiver"]["id"] == "W-0002", "the next free id"


def test_waivers_new_refuses_unknown_names_and_far_expiry(cli: Cli, corpus: Path) -> None:
    config = corpus / "corpus.yaml"
    config.write_text(
        config.read_text().replace("max_days: 27000", "max_days: 30"), encoding="utf-8"
    )
    base = ["-C", corpus, "waivers", "new"]
    far = (date.today() + timedelta(days=31)).isoformat()
    for args, said in (
        (["no-such-case", "--check", "all", "--reason", "r"], "no such case 'no-such-case'"),
        (["refund-success", "--check", "tools.argz", "--reason", "r"], "unknown check tools.argz"),
        (
            ["refund-success", "--check", "all", "--reason", "r", "--expires", far],
            "more than 30 days ahead",
        ),
        (
            ["refund-success", "--check", "all", "--reason", "r", "--expires", "2020-01-01"],
            "in the past",
        ),
        (["refund-success", "--check", "all", "--reason", "r", "--id", "W-0001"], "exists"),
    ):
        done = cli(*base, *args)
        assert done.code == 2 and said in done.err, (args, done.err)
    assert sorted(p.name for p in (corpus / "waivers").iterdir()) == ["W-0001.yaml"]


def test_waivers_list_expired_and_unused(cli: Cli, corpus: Path) -> None:
    listed = cli("-C", corpus, "waivers", "list")
    assert listed.code == 0 and listed.out.startswith("W-0001") and "active" in listed.out
    assert cli("-C", corpus, "waivers", "expired").code == 0
    assert cli("-C", corpus, "waivers", "unused").code == 0, "W-0001 excuses a real divergence"
    results = corpus.parent / "lenient.json"
    cli("-C", corpus, "replay", "--mode", "lenient", "--results", results)
    unused = cli("-C", corpus, "waivers", "unused", "--results", results)
    assert unused.code == 1 and "W-0001" in unused.out, "no divergence in lenient mode"
    waiver = corpus / "waivers" / "W-0001.yaml"
    waiver.write_text(waiver.read_text().replace("2099-12-31", "2026-01-02"), encoding="utf-8")
    expired = cli("-C", corpus, "waivers", "expired", "--format", "json")
    assert expired.code == 1 and json.loads(expired.out)["waivers"][0]["id"] == "W-0001"


def test_status_reports_drift_expiring_waivers_and_counts(cli: Cli, corpus: Path) -> None:
    waiver = corpus / "waivers" / "W-0001.yaml"
    soon = (date.today() + timedelta(days=3)).isoformat()
    waiver.write_text(waiver.read_text().replace("2099-12-31", soon), encoding="utf-8")
    done = cli("-C", corpus, "status", "--format", "json")
    assert done.code == 0
    doc = json.loads(done.out)
    assert doc["counts"] == {"fast": {"active": 5, "known_unknown": 1}}
    # refund-wrong-unit was recorded under refund-v12; corpus.yaml says refund-v13
    assert {
        "case": "refund-wrong-unit",
        "fact": "prompt_version",
        "recorded": "refund-v12",
        "current": "refund-v13",
    } in doc["drift"]
    assert [w["id"] for w in doc["waivers"]["expiring"]] == ["W-0001"]
    assert doc["waivers"]["unused"] is None
    text = cli("-C", corpus, "status").out
    assert "refund-wrong-unit: prompt_version refund-v12 (current: refund-v13)" in text
