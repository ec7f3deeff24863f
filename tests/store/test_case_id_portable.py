"""Case ids every file system holds as themselves: no Windows device names, no trailing dots,
no two directories that macOS or Windows take for one name (case, Unicode normalization)."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest

from corpus_tool.io import schema
from corpus_tool.store.corpus import is_case_id
from tests.conftest import EXAMPLES, Cli

INCIDENT = EXAMPLES / "incidents" / "inventory-zero-stock.json"
RESERVED = [
    "con",
    "nul",
    "aux",
    "prn",
    "com1",
    "com9",
    "lpt1",
    "lpt9",
    "con.txt",
    "nul.tar.gz",
    "aux.yaml",
    "CON",
    "Nul.txt",
    "coM1",
]
TRAILING = ["refund.", "refund-ok.", "a.b."]
ALLOWED = ["console", "null", "nul-1", "com10", "lpt", "auxiliary", "con-txt", "a.b", "prn_x"]
CAFE_NFC = unicodedata.normalize("NFC", "café")
CAFE_NFD = unicodedata.normalize("NFD", "café")


def _cases(corpus_dir: Path) -> list[str]:
    return sorted(p.name for p in (corpus_dir / "cases").iterdir() if p.is_dir())


@pytest.mark.parametrize("case_id", RESERVED + TRAILING + ["refund ", "refund. "])
def test_add_refuses_an_id_a_file_system_cannot_hold(
    cli: Cli, corpus_dir: Path, case_id: str
) -> None:
    done = cli("-C", corpus_dir, "add", INCIDENT, "--id", case_id)
    assert done.code == 2
    assert f"invalid case id {case_id!r}" in done.err
    if case_id in RESERVED and case_id.islower():
        assert "device name Windows reserves" in done.err
    if case_id in TRAILING:
        assert "ends with a dot" in done.err
    assert _cases(corpus_dir) == []


@pytest.mark.parametrize("case_id", [CAFE_NFC, CAFE_NFD, "ｒefund", "ﬁle"])
def test_add_refuses_ids_that_have_another_unicode_spelling(
    cli: Cli, corpus_dir: Path, case_id: str
) -> None:
    done = cli("-C", corpus_dir, "add", INCIDENT, "--id", case_id)
    assert done.code == 2
    assert "ASCII only" in done.err and "Unicode" in done.err
    assert _cases(corpus_dir) == []


@pytest.mark.parametrize("case_id", ALLOWED)
def test_add_takes_ids_that_only_look_like_device_names(
    cli: Cli, corpus_dir: Path, case_id: str
) -> None:
    assert cli("-C", corpus_dir, "add", INCIDENT, "--id", case_id).code == 0
    assert cli("-C", corpus_dir, "validate").code == 0


@pytest.mark.parametrize("new", ["nul", "com1.txt", "lpt3", "stock.", CAFE_NFD])
def test_mv_refuses_a_new_id_a_file_system_cannot_hold(
    cli: Cli, corpus_dir: Path, new: str
) -> None:
    assert cli("-C", corpus_dir, "add", INCIDENT, "--id", "stock").code == 0
    before = _cases(corpus_dir)
    done = cli("-C", corpus_dir, "mv", "stock", new)
    assert done.code == 2
    assert f"invalid case id {new!r}" in done.err
    assert _cases(corpus_dir) == before


@pytest.mark.parametrize("name", ["con", "aux.txt", "lpt1", "stock."])
def test_validate_flags_an_existing_directory_a_file_system_cannot_hold(
    cli: Cli, corpus_dir: Path, name: str
) -> None:
    assert cli("-C", corpus_dir, "add", INCIDENT, "--id", "stock").code == 0
    (corpus_dir / "cases" / "stock").rename(corpus_dir / "cases" / name)
    done = cli("-C", corpus_dir, "validate")
    assert done.code == 1
    assert "case.id" in done.out and f"invalid case id {name!r}" in done.out


def _twin_dir(corpus_dir: Path, cli: Cli, name: str) -> None:
    """A directory written by hand (or by a checkout) beside the cases `add` made."""
    assert cli("-C", corpus_dir, "add", INCIDENT, "--id", "scratch").code == 0
    (corpus_dir / "cases" / "scratch").rename(corpus_dir / "cases" / name)


def test_validate_flags_two_directories_that_differ_only_in_normalization(
    cli: Cli, corpus_dir: Path
) -> None:
    _twin_dir(corpus_dir, cli, CAFE_NFC)
    _twin_dir(corpus_dir, cli, CAFE_NFD)
    done = cli("-C", corpus_dir, "validate")
    assert done.code == 1
    found = [line for line in done.out.splitlines() if "differ only in case, Unicode" in line]
    assert len(found) == 2, done.out


@pytest.mark.parametrize("twin", ["Stock", "stock.", "stock ", "ｓtock"])
def test_add_and_mv_refuse_an_id_whose_twin_directory_exists(
    cli: Cli, corpus_dir: Path, twin: str
) -> None:
    _twin_dir(corpus_dir, cli, twin)
    done = cli("-C", corpus_dir, "add", INCIDENT, "--id", "stock")
    assert done.code == 2
    assert f"the directory {twin!r}" in done.err and "differ only in case" in done.err
    assert not (corpus_dir / "cases" / "stock").exists()
    assert cli("-C", corpus_dir, "add", INCIDENT, "--id", "other").code == 0
    moved = cli("-C", corpus_dir, "mv", "other", "stock")
    assert moved.code == 2 and f"the directory {twin!r}" in moved.err
    assert (corpus_dir / "cases" / "other").is_dir()
    assert not (corpus_dir / "cases" / "stock").exists()
    flagged = cli("-C", corpus_dir, "validate")
    assert flagged.code == 1 and f"invalid case id {twin!r}" in flagged.out


def _pattern(kind: str, *where: str) -> str:
    node = json.loads((schema.schema_dir() / f"{kind}.schema.json").read_text("utf-8"))
    for key in where:
        node = node[key]
    return str(node["pattern"])


@pytest.mark.parametrize(
    "case_id",
    RESERVED + TRAILING + ALLOWED + ["a..b", "-a", "a", "a" * 80, "a" * 81, "Refund", CAFE_NFC],
)
def test_schema_id_rule_agrees_with_the_code(case_id: str) -> None:
    patterns = {
        _pattern("expected", "properties", "id"),
        _pattern("trace", "$defs", "case_id"),
        _pattern("waiver", "properties", "case"),
    }
    assert len(patterns) == 1
    assert (re.search(patterns.pop(), case_id) is not None) is is_case_id(case_id)
