"""One corpus, one key: a second key is refused; a rotation in corpus.yaml moves cases over."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from corpus_tool.redact import RedactionKey
from tests.conftest import EXAMPLES, TEST_KEY, Cli

OLD = RedactionKey(TEST_KEY.encode(), "test")
NEW_KEY = "second-key-abcdefghijklmnopqrstuvwxyz012345"
NEW = RedactionKey(NEW_KEY.encode(), "test")
INCIDENTS = EXAMPLES / "incidents"
CASES = {
    "a": "refund-success.json",
    "b": "inventory-zero-stock.json",
    "c": "refund-wrong-unit.json",
}


@pytest.fixture
def corpus(corpus_dir: Path, cli: Cli) -> Path:
    """Three cases added under the test key."""
    for case_id, name in CASES.items():
        assert cli("-C", corpus_dir, "add", INCIDENTS / name, "--id", case_id).code == 0
    return corpus_dir


def _key_ids(root: Path) -> dict[str, str]:
    """What each trace.yaml on disk records as its key id."""
    return {
        p.parent.name: yaml.safe_load(p.read_text())["redaction"]["key_id"]
        for p in sorted(root.glob("cases/*/trace.yaml"))
    }


def _rotate(root: Path, key_id: str) -> None:
    config = root / "corpus.yaml"
    data = yaml.safe_load(config.read_text())
    data["redaction"]["key_id"] = key_id
    config.write_text(yaml.safe_dump(data, sort_keys=False))


def _findings(cli: Cli, root: Path, rule: str) -> list[dict[str, object]]:
    done = cli("validate", "--format", "json", cwd=root)
    return [f for f in json.loads(done.out)["findings"] if f["rule"] == rule]


def test_a_second_key_is_refused_naming_both_ids(
    corpus: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = {p: p.read_bytes() for p in corpus.rglob("*") if p.is_file()}
    monkeypatch.setenv("CORPUS_REDACTION_KEY", NEW_KEY)
    for args in (
        ("add", INCIDENTS / "refund-success.json", "--id", "a", "--force"),  # the path
        ("add", INCIDENTS / "check-refund-timeout-retry.json", "--id", "d"),
        ("add", INCIDENTS),  # many incidents: the same refusal
    ):
        done = cli("-C", corpus, *args)
        assert done.code == 2, done
        assert OLD.key_id in done.err and NEW.key_id in done.err
        assert "corpus keygen --show-id" in done.err and done.err.count("\n") == 1
    assert {p: p.read_bytes() for p in corpus.rglob("*") if p.is_file()} == before
    assert _key_ids(corpus) == dict.fromkeys(CASES, OLD.key_id)


def test_keygen_show_id_tells_which_key_fits(
    corpus: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    same = cli("-C", corpus, "keygen", "--show-id")
    assert same.code == 0 and same.out == OLD.key_id + "\n" and "the same key" in same.err
    monkeypatch.setenv("CORPUS_REDACTION_KEY", NEW_KEY)
    other = cli("-C", corpus, "keygen", "--show-id")
    assert other.code == 1 and other.out == NEW.key_id + "\n" and OLD.key_id in other.err
    assert not list(corpus.rglob("*.key"))  # --show-id makes no key


def test_rotation_lists_old_key_cases_until_re_added(
    corpus: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("-C", corpus, "validate").code == 0
    _rotate(corpus, NEW.key_id)
    # the old key is now the one refused
    assert cli("-C", corpus, "add", INCIDENTS / "refund-success.json", "--id", "z").code == 2
    monkeypatch.setenv("CORPUS_REDACTION_KEY", NEW_KEY)

    old = _findings(cli, corpus, "redaction.old_key")
    assert sorted(f["path"] for f in old) == [f"cases/{c}/trace.yaml" for c in sorted(CASES)]
    for finding in old:
        trace = (corpus / str(finding["path"])).read_text().splitlines()
        assert trace[int(str(finding["line"])) - 1].strip() == f"key_id: {OLD.key_id}"
        assert NEW.key_id in str(finding["message"]) and "corpus add --force" in str(
            finding["message"]
        )
    text = cli("validate", cwd=corpus)
    assert text.code == 1 and "cases/a/trace.yaml:" in text.out

    reviewed = corpus / "cases/a/expected.yaml"
    reviewed.write_text(reviewed.read_text().replace("owner: unassigned", "owner: refunds"))
    assert cli("-C", corpus, "add", INCIDENTS / CASES["a"], "--id", "a", "--force").code == 0
    left = [f["path"] for f in _findings(cli, corpus, "redaction.old_key")]
    assert left == ["cases/b/trace.yaml", "cases/c/trace.yaml"]
    assert "owner: refunds" in reviewed.read_text()  # --force keeps the reviewed expectations

    for case_id in ("b", "c"):
        added = cli("-C", corpus, "add", INCIDENTS / CASES[case_id], "--id", case_id, "--force")
        assert added.code == 0
    assert _key_ids(corpus) == dict.fromkeys(CASES, NEW.key_id)
    done = cli("-C", corpus, "validate")
    assert done.code == 0, done.out


def test_the_hook_reports_an_old_key_case_it_is_given(
    corpus: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    _rotate(corpus, NEW.key_id)
    done = cli("validate", corpus / "cases/b/expected.yaml", cwd=corpus)
    assert done.code == 1
    assert "cases/b/trace.yaml" in done.out and "[redaction.old_key]" in done.out
    assert "cases/a/" not in done.out  # only the case the commit touches


def test_a_corpus_split_across_keys_is_reported_on_corpus_yaml(
    corpus: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"  # a corpus made with another key, whose case is copied over
    assert cli("init", other).code == 0
    monkeypatch.setenv("CORPUS_REDACTION_KEY", NEW_KEY)
    added = cli("-C", other, "add", INCIDENTS / "create-refund-lost-retry.json", "--id", "d")
    assert added.code == 0
    shutil.copytree(other / "cases/d", corpus / "cases/d")
    [split] = _findings(cli, corpus, "redaction.split_key")
    assert split["path"] == "corpus.yaml"
    assert OLD.key_id in str(split["message"]) and NEW.key_id in str(split["message"])
    assert "3 cases" in str(split["message"]) and "1 case: d" in str(split["message"])
    _rotate(corpus, NEW.key_id)  # naming the current key turns it into per-case findings
    assert not _findings(cli, corpus, "redaction.split_key")
    assert len(_findings(cli, corpus, "redaction.old_key")) == 3


def test_a_malformed_key_id_in_corpus_yaml_is_a_schema_finding(corpus: Path, cli: Cli) -> None:
    _rotate(corpus, "my-new-key")
    done = cli("-C", corpus, "validate")
    assert done.code == 1 and "corpus.yaml" in done.out and "$.redaction.key_id" in done.out
