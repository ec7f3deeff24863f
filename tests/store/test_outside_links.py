"""corpus.yaml, cases/ or waivers/ as a symbolic link out of the corpus directory.

Files written through such a link land where the repository does not track them, and a config
read through one is not the one the repository reviews: every command that writes refuses
(exit 2, one line naming the link and what to do) before writing anything, and `validate`
reports the link as a `corpus.layout` finding.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Cli, Result

INCIDENT = EXAMPLES / "incidents" / "refund-success.json"
NEW_WAIVER = ["waivers", "new", "c1", "--check", "all", "--reason", "lands soon", "--owner", "o"]


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under root with its bytes (links as their targets' text)."""
    return {
        str(p.relative_to(root)): (str(p.readlink()).encode() if p.is_symlink() else p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file() or p.is_symlink()
    }


def _moved_out(corpus: Path, name: str, outside: Path) -> Path:
    """Move corpus/name to outside/name and leave a link to it in its place."""
    outside.mkdir(exist_ok=True)
    target = outside / name
    shutil.move(corpus / name, target)
    (corpus / name).symlink_to(target)
    return target


def _refused(done: Result, link: Path) -> None:
    assert done.code == 2, done
    lines = done.err.strip().splitlines()
    assert len(lines) == 1, done.err
    assert str(link) in lines[0] and "outside the corpus" in lines[0], lines[0]
    assert "replace the link with the" in lines[0]


def _layout_finding(cli: Cli, corpus: Path, name: str) -> None:
    done = cli("-C", corpus, "validate", "--format", "json", cwd=corpus)
    assert done.code == 1, done
    found = [f for f in json.loads(done.out)["findings"] if f["rule"] == "corpus.layout"]
    assert [f["path"] for f in found] == [name], found
    assert "outside the corpus" in found[0]["message"]


@pytest.fixture
def corpus(corpus_dir: Path, cli: Cli) -> Path:
    assert cli("-C", corpus_dir, "add", INCIDENT, "--id", "c1").code == 0
    return corpus_dir


def test_add_refuses_cases_linked_outside(corpus: Path, tmp_path: Path, cli: Cli) -> None:
    outside = _moved_out(corpus, "cases", tmp_path / "elsewhere")
    before = _tree(outside)
    for argv in (["add", str(INCIDENT), "--id", "c2"], ["mv", "c1", "c3"], ["migrate"]):
        _refused(cli("-C", corpus, *argv), corpus / "cases")
        assert _tree(outside) == before, argv
    _layout_finding(cli, corpus, "cases")


def test_waivers_new_refuses_waivers_linked_outside(corpus: Path, tmp_path: Path, cli: Cli) -> None:
    outside = _moved_out(corpus, "waivers", tmp_path / "elsewhere")
    before = _tree(outside)
    _refused(cli("-C", corpus, *NEW_WAIVER), corpus / "waivers")
    assert _tree(outside) == before
    _layout_finding(cli, corpus, "waivers")


def test_a_corpus_yaml_linked_outside_is_refused_by_writing_commands(
    corpus: Path, tmp_path: Path, cli: Cli
) -> None:
    outside = _moved_out(corpus, "corpus.yaml", tmp_path / "elsewhere")
    before, inside = _tree(outside.parent), _tree(corpus)
    for argv in (["add", str(INCIDENT), "--id", "c2"], NEW_WAIVER, ["forget", "a@b.example"]):
        _refused(cli("-C", corpus, *argv), corpus / "corpus.yaml")
        assert _tree(outside.parent) == before and _tree(corpus) == inside, argv
    _layout_finding(cli, corpus, "corpus.yaml")
