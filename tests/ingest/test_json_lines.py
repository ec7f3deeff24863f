"""A JSON-lines file that is not an MCP log is a format not recognised, not broken JSON."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli


def test_json_lines_no_importer_reads_say_not_recognised(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    spans = [{"level": "info", "step": i, "msg": f"step {i} done"} for i in range(3)]
    export = tmp_path / "app-log.jsonl"
    export.write_text("".join(json.dumps(s) + "\n" for s in spans), encoding="utf-8")
    result = cli("-C", corpus_dir, "add", export)
    assert result.code == 2
    assert "not a recognised incident" in result.err and "JSON lines" in result.err
    assert "Extra data" not in result.err
    assert str(export) in result.err and result.err.count("\n") == 1


def test_broken_json_still_says_where(corpus_dir: Path, cli: Cli, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"events": [1, 2,\n', encoding="utf-8")
    result = cli("-C", corpus_dir, "add", broken)
    assert result.code == 2 and "not valid JSON" in result.err
