"""`corpus migrate`: registered schema migrations applied with comments, order and quoting kept."""

from __future__ import annotations

import shutil
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml.comments import CommentedMap

from corpus_tool.io import migrations
from corpus_tool.io.migrations import Migration, Migrations
from tests.conftest import EXAMPLES, Cli

OLD = """\
# Expectations of refund-success, as an older corpus-tool wrote them.
schema_version: 0
id: refund-success
title: 'a refund is submitted, never "succeeded"'   # quoted on purpose
status: active
tier: fast
team: payments-team   # who answers for it
tags: [refund]
mode: strict
expect:
  tools:
    required: [get_order, create_refund]   # both, in any order
  terminal:
    status: submitted
"""


def rename_team_move_mode(doc: MutableMapping[str, Any]) -> None:
    """Version 0 -> 1: `team` became `owner`; a top-level `mode` moved under `replay`."""
    assert isinstance(doc, CommentedMap)
    at = list(doc).index("team")
    comment = doc.ca.items.pop("team", None)
    doc.insert(at, "owner", doc.pop("team"))
    if comment is not None:
        doc.ca.items["owner"] = comment
    at = list(doc).index("mode")
    doc.insert(at, "replay", CommentedMap(mode=doc.pop("mode")))


STEPS = Migrations().add(
    Migration("expected", 1, rename_team_move_mode, "team -> owner; replay.mode")
)


@pytest.fixture
def old_case(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    (root / "cases" / "refund-success" / "expected.yaml").write_text(OLD, encoding="utf-8")
    return root


def test_migrate_applies_a_registered_step_keeping_comments_order_and_quotes(
    cli: Cli, old_case: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = old_case / "cases" / "refund-success" / "expected.yaml"
    before = cli("-C", old_case, "validate", path)
    assert before.code == 1 and "no corpus-tool step upgrades expected files" in before.out
    monkeypatch.setattr(migrations, "REGISTERED", STEPS)
    told = cli("-C", old_case, "validate", path)
    assert "run `corpus migrate`" in told.out
    done = cli("-C", old_case, "migrate")
    assert done.code == 0, done.err
    assert "migrated 1 file(s)" in done.out
    text = path.read_text(encoding="utf-8")
    # the comment keeps its column; everything else is the old text, byte for byte
    assert text == OLD.replace("schema_version: 0", "schema_version: 1").replace(
        "team: payments-team   #", "owner: payments-team  #"
    ).replace("mode: strict\n", "replay:\n  mode: strict\n")
    assert cli("-C", old_case, "validate", path).code == 0
    again = cli("-C", old_case, "migrate")
    assert again.code == 0 and "nothing to migrate" in again.out
    assert path.read_text(encoding="utf-8") == text


def test_migrate_dry_run_prints_the_diff_and_writes_nothing(
    cli: Cli, old_case: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(migrations, "REGISTERED", STEPS)
    path = old_case / "cases" / "refund-success" / "expected.yaml"
    done = cli("-C", old_case, "migrate", "--dry-run")
    assert done.code == 0
    assert "-team: payments-team   # who answers for it" in done.out
    assert "+owner: payments-team  # who answers for it" in done.out
    assert "would migrate 1 file(s)" in done.out
    assert path.read_text(encoding="utf-8") == OLD


def test_migrate_refuses_everything_when_one_file_cannot_be_upgraded(
    cli: Cli, old_case: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(migrations, "REGISTERED", STEPS)
    trace = old_case / "cases" / "refund-success" / "trace.yaml"
    text = trace.read_text(encoding="utf-8").replace("schema_version: 1", "schema_version: 0")
    trace.write_text(text, encoding="utf-8")
    done = cli("-C", old_case, "migrate")
    assert done.code == 2
    assert "trace.yaml" in done.err and "no upgrade of trace files" in done.err
    assert (old_case / "cases" / "refund-success" / "expected.yaml").read_text() == OLD


def test_migrate_upgrades_an_old_corpus_yaml_it_cannot_otherwise_open(
    cli: Cli, old_case: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = old_case / "corpus.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("schema_version: 1", "schema_version: 0"),
        encoding="utf-8",
    )
    assert cli("-C", old_case, "status").code == 2
    steps = STEPS.add(Migration("corpus", 1, lambda doc: None))
    monkeypatch.setattr(migrations, "REGISTERED", steps)
    assert "run `corpus migrate`" in cli("-C", old_case, "status").err
    assert cli("-C", old_case, "migrate").code == 0
    assert cli("-C", old_case, "status").code == 0
