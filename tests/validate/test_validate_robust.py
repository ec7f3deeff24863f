"""`validate` given directories, non-UTF-8 files and scorers a case has no right to name.

A directory argument checks every corpus file under it (never "0 files checked"); a corpus file
in UTF-16 or UTF-32 is a finding, so nothing hides from the redaction scan; a scorer a case names
must be registered in corpus.yaml, and an unregistered one is never imported.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, Cli

BROKEN = "cases/refund-success/expected.yaml"


@pytest.fixture
def repo_with_corpus(tmp_path: Path) -> Path:
    """A checkout holding the example corpus in evals/, with one schema error in one case."""
    root = tmp_path / "checkout"
    shutil.copytree(EXAMPLES / "corpus", root / "evals")
    broken = root / "evals" / BROKEN
    broken.write_text(broken.read_text(encoding="utf-8").replace("tier: fast", "tier: x"))
    return root


@pytest.mark.parametrize(
    "given",
    ["evals", "evals/cases", "evals/cases/refund-success", ".", "evals/cases/refund-success/"],
)
def test_validate_a_directory_checks_the_files_under_it(
    given: str, repo_with_corpus: Path, cli: Cli
) -> None:
    result = cli("validate", given, "--format", "json", cwd=repo_with_corpus)
    assert result.code == 1, result.err
    report = json.loads(result.out)
    assert report["checked"] >= 2
    assert [(f["path"], f["rule"]) for f in report["findings"]] == [(f"evals/{BROKEN}", "schema")]


def test_validate_waivers_directory_checks_every_waiver(repo_with_corpus: Path, cli: Cli) -> None:
    waiver = repo_with_corpus / "evals/waivers/W-1.yaml"
    waiver.write_text("schema_version: 1\nid: W-2\n", encoding="utf-8")
    result = cli("validate", "evals/waivers", cwd=repo_with_corpus)
    assert result.code == 1 and "evals/waivers/W-1.yaml" in result.out


def test_validate_a_directory_without_corpus_files_is_an_error(
    repo_with_corpus: Path, tmp_path: Path, cli: Cli
) -> None:
    (repo_with_corpus / "evals/docs").mkdir()
    inside = cli("validate", "evals/docs", cwd=repo_with_corpus)
    assert inside.code == 2 and "holds no corpus files" in inside.err
    (tmp_path / "empty").mkdir()
    nowhere = cli("validate", tmp_path / "empty", cwd=tmp_path)
    assert nowhere.code == 2 and "no corpus.yaml in it, above or below it" in nowhere.err
    for sub in ("cases", "waivers"):
        shutil.rmtree(repo_with_corpus / "evals" / sub)
        (repo_with_corpus / "evals" / sub).mkdir()
        empty = cli("validate", f"evals/{sub}", cwd=repo_with_corpus)
        assert empty.code == 2 and f"holds no {sub}; nothing to check" in empty.err


def test_validate_a_file_that_is_no_corpus_file_is_an_error(
    repo_with_corpus: Path, cli: Cli
) -> None:
    (repo_with_corpus / "evals/README.md").write_text("# evals\n", encoding="utf-8")
    result = cli("validate", "evals/README.md", cwd=repo_with_corpus)
    assert result.code == 2 and "not a corpus file" in result.err


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_a_wide_encoded_case_file_is_a_finding_not_a_hiding_place(
    codec: str, tmp_path: Path, cli: Cli
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", corpus)
    expected = corpus / BROKEN
    text = expected.read_text(encoding="utf-8")
    text += "# reach alice.w@corp-mail.cn, key AKIAIOSFODNN7EXAMPLE\n"
    raw = text.encode(codec)
    expected.write_bytes(raw if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else b"\xfe\xff" + raw)
    result = cli("-C", corpus, "validate", "--format", "json")
    assert result.code == 1
    [finding] = json.loads(result.out)["findings"]
    assert (finding["path"].endswith(BROKEN), finding["rule"]) == (True, "parse")
    assert "not UTF-8 text" in finding["message"] and "save it as UTF-8" in finding["message"]


PLANTED = "planted_scorer"


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An importable module that leaves a marker file the moment anything imports it."""
    marker = tmp_path / "imported"
    code = f"open({str(marker)!r}, 'w').close()\ndef score(output, reference):\n    return 1.0\n"
    (tmp_path / f"{PLANTED}.py").write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield marker
    sys.modules.pop(PLANTED, None)


def _name_scorer(corpus: Path, scorer: str) -> None:
    path = corpus / BROKEN
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["expect"]["output"] = {"similar": {"reference": "Refund submitted.", "scorer": scorer}}
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")


@pytest.mark.parametrize("scorer", [f"{PLANTED}:score", "os:symlink", "embedding"])
def test_a_case_naming_an_unregistered_scorer_is_a_finding_and_never_imported(
    scorer: str, planted: Path, tmp_path: Path, cli: Cli
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", corpus)
    _name_scorer(corpus, scorer)
    result = cli("-C", corpus, "validate", "--format", "json")
    assert result.code == 1
    [finding] = json.loads(result.out)["findings"]
    assert (finding["rule"], finding["json_path"]) == (
        "scorer.unregistered",
        "$.expect.output.similar.scorer",
    )
    assert f"scorer {scorer!r} is not registered in corpus.yaml `scorers`" in finding["message"]
    checked = cli("-C", corpus, "check", "--format", "json")
    assert checked.code == 1
    assert not planted.exists() and PLANTED not in sys.modules


def test_a_registered_scorer_is_imported_and_used(planted: Path, tmp_path: Path, cli: Cli) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", corpus)
    _name_scorer(corpus, "planted")
    config = corpus / "corpus.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + f"scorers:\n  planted: {PLANTED}:score\n",
        encoding="utf-8",
    )
    assert cli("-C", corpus, "validate").code == 0
    assert not planted.exists()  # validation needs the name, never the code
    results = tmp_path / "results.json"
    cli("-C", corpus, "replay", "refund-success", "--results", results)
    [case] = json.loads(results.read_text(encoding="utf-8"))["cases"]
    similar = [c for c in case["checks"] if c["name"] == "output.similar"]
    assert similar and similar[0]["passed"], case
    assert planted.exists()


def test_a_default_scorer_must_be_registered_too(tmp_path: Path, cli: Cli) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", corpus)
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8").replace(
        "  mode: strict\n", "  mode: strict\n  scorer: semantic\n"
    )
    config.write_text(text, encoding="utf-8")
    result = cli("-C", corpus, "validate", "--format", "json")
    [finding] = json.loads(result.out)["findings"]
    assert (finding["rule"], finding["json_path"]) == ("scorer.unregistered", "$.replay.scorer")
