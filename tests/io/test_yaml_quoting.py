"""Every YAML file corpus-tool writes reads back the same in YAML 1.1 and 1.2.

corpus-tool reads YAML 1.1 (PyYAML: `no`, `on`, `y` are booleans, `12:30:00` a number), other
tools read 1.2 (ruamel.yaml: `1e3` is a float, `0o17` an integer). A string the tool writes
must come back as that string from both, whether it is a case id, a waiver's reason or a
value in a trace.
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from ruamel.yaml import YAML

from corpus_tool.io import files, migrations
from corpus_tool.io.migrations import Migration, Migrations
from corpus_tool.store.corpus import is_case_id
from tests.conftest import EXAMPLES, Cli

BOOLEANS = ["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE"]
BOOLEANS += ["false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"]
BOOLEANS_AND_NULLS = [*BOOLEANS, "null", "Null", "NULL", "~", ""]
NUMBERS_AND_DATES = ["1e3", "0o17", "0x1F", "0x1f", "1_000", ".inf", ".nan", "12:30:00"]
NUMBERS_AND_DATES += ["2026-01-01", "1e-3", "+.5", "0b101", "007", "1:20", "=", "<<"]
SPELLINGS = BOOLEANS_AND_NULLS + NUMBERS_AND_DATES
IDS = [s for s in SPELLINGS if is_case_id(s)]
INCIDENT = EXAMPLES / "incidents" / "inventory-zero-stock.json"


def _both(text: str) -> tuple[Any, Any]:
    """The document as PyYAML (YAML 1.1) and as ruamel.yaml (YAML 1.2) read it."""
    return yaml.safe_load(text), YAML(typ="safe", pure=True).load(io.StringIO(text))


def _ids(case: Path) -> list[Any]:
    found = []
    for name in ("trace.yaml", "expected.yaml"):
        found.extend(doc["id"] for doc in _both((case / name).read_text("utf-8")))
    return found


def test_every_spelling_is_covered_by_an_id() -> None:
    assert {"y", "no", "off", "null", "true", "1e3", "0o17", "1_000", "2026-01-01"} <= set(IDS)


@pytest.mark.parametrize("case_id", IDS)
def test_add_mv_validate_keep_an_id_yaml_would_misread(
    cli: Cli, corpus_dir: Path, case_id: str
) -> None:
    done = cli("-C", corpus_dir, "add", INCIDENT, "--id", case_id)
    assert done.code == 0, done.err
    assert _ids(corpus_dir / "cases" / case_id) == [case_id] * 4
    checked = cli("-C", corpus_dir, "validate")
    assert checked.code == 0, checked.out
    moved = cli("-C", corpus_dir, "mv", case_id, "elsewhere")
    assert moved.code == 0, moved.err
    back = cli("-C", corpus_dir, "mv", "elsewhere", case_id)
    assert back.code == 0, back.err
    assert _ids(corpus_dir / "cases" / case_id) == [case_id] * 4
    assert cli("-C", corpus_dir, "validate").code == 0


def test_add_writes_trace_strings_that_survive_both_readers(
    cli: Cli, corpus_dir: Path, tmp_path: Path
) -> None:
    incident = json.loads(INCIDENT.read_text("utf-8"))
    incident["input"]["context"] = {"flags": SPELLINGS}
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(incident), "utf-8")
    assert cli("-C", corpus_dir, "add", path, "--id", "odd").code == 0
    text = (corpus_dir / "cases" / "odd" / "trace.yaml").read_text("utf-8")
    for doc in _both(text):
        assert doc["input"]["context"]["flags"] == SPELLINGS


@pytest.mark.parametrize("value", SPELLINGS)
def test_waivers_new_writes_strings_that_survive_both_readers(
    cli: Cli, corpus_dir: Path, value: str
) -> None:
    case_id = value if is_case_id(value) else "case"
    assert cli("-C", corpus_dir, "add", INCIDENT, "--id", case_id).code == 0
    done = cli(
        "-C",
        corpus_dir,
        "waivers",
        "new",
        case_id,
        "--check",
        "all",
        "--reason",
        value or "r",
        "--owner",
        value or "o",
        "--ticket",
        value or "t",
        "--format",
        "json",
    )
    assert done.code == 0, done.err
    waiver = json.loads(done.out)["waiver"]["id"]
    text = (corpus_dir / "waivers" / f"{waiver}.yaml").read_text("utf-8")
    for doc in _both(text):
        assert doc["case"] == case_id
        assert [doc["reason"], doc["owner"], doc["ticket"]] == [
            value or "r",
            value or "o",
            value or "t",
        ]
    assert cli("-C", corpus_dir, "validate").code == 0


def test_corpus_yaml_by_init_reads_the_same_in_both(corpus_dir: Path) -> None:
    pyyaml, ruamel = _both((corpus_dir / "corpus.yaml").read_text("utf-8"))
    assert pyyaml == ruamel


@pytest.mark.parametrize("value", SPELLINGS)
def test_dump_yaml_and_top_value_edits_quote_what_needs_it(value: str) -> None:
    for doc in _both(files.dump_yaml({"id": value, "list": [value], value: 1})):
        assert doc == {"id": value, "list": [value], value: 1}
    edited = files.with_top_value("id: x  # kept\n", "id", value, Path("f.yaml"))
    assert edited.endswith("  # kept\n")
    for doc in _both(edited):
        assert doc == {"id": value}


def test_plain_values_keep_their_bytes() -> None:
    plain = {"id": "refund-ok", "title": "a refund is made", "count": 1, "tags": ["x-1", "b"]}
    assert (
        files.dump_yaml(plain)
        == "id: refund-ok\ntitle: a refund is made\ncount: 1\ntags:\n- x-1\n- b\n"
    )
    assert files.with_top_value("id: a  # c\n", "id", "b-2", Path("f")) == "id: b-2  # c\n"


def _title_step(value: str) -> Migrations:
    def upgrade(doc: MutableMapping[str, Any]) -> None:
        doc["title"] = value
        doc["tags"] = [value] if value else []

    return Migrations().add(Migration("expected", 1, upgrade, "a new title"))


@pytest.mark.parametrize("value", [s for s in SPELLINGS if s])
def test_migrate_quotes_what_a_step_writes_and_keeps_what_the_file_says(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    path = root / "cases" / "refund-success" / "expected.yaml"
    text = path.read_text("utf-8")
    assert "schema_version: 1\n" in text
    old = text.replace("schema_version: 1\n", "schema_version: 0\n", 1) + "note: on\n"
    path.write_text(old, "utf-8")  # plain `on` is true to corpus-tool, a string to YAML 1.2
    monkeypatch.setattr(migrations, "REGISTERED", _title_step(value))
    done = cli("-C", root, "migrate")
    assert done.code == 0, done.err
    written = path.read_text("utf-8")
    assert "note: on\n" in written
    for doc in _both(written):
        assert doc["title"] == value and doc["tags"] == [value]
    assert yaml.safe_load(written)["note"] is True
