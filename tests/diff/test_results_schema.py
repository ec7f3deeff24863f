"""`corpus diff` checks each results document against its schema, JSON or YAML alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus_tool.io import files
from tests.conftest import Cli


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_diff_refuses_a_results_document_the_schema_refuses(
    cli: Cli, example_results: Path, tmp_path: Path, form: str
) -> None:
    """The compiled schema check answers for valid documents only: a bad verdict still names
    its place, whether the document is JSON or YAML."""
    doc = json.loads(example_results.read_text(encoding="utf-8"))
    same = cli("diff", example_results, example_results)
    assert same.code == 0  # the untouched document compares
    doc["cases"][0]["verdict"] = "maybe"
    bad = tmp_path / f"bad.{form}"
    bad.write_text(json.dumps(doc) if form == "json" else files.dump_yaml(doc), encoding="utf-8")
    code, out, err = cli("diff", example_results, bad)
    assert (code, out) == (2, "")
    assert "not a valid results document: $.cases[0].verdict: 'maybe'" in err
    assert str(bad) in err
