"""A case whose tool call contradicts its model call is refused by `add` and found by `validate`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import EXAMPLES, Cli


def _contradicting(tmp_path: Path) -> Path:
    doc = json.loads((EXAMPLES / "incidents/refund-success.json").read_text())
    tool = next(e for e in doc["events"] if e["type"] == "tool_call")
    tool["input"] = {"input": "O-1001"}  # the wrapper a broken importer kept
    path = tmp_path / "contradicting.json"
    path.write_text(json.dumps(doc))
    return path


def test_consistency_add_refuses_a_contradicting_case(
    tmp_path: Path, corpus_dir: Path, cli: Cli
) -> None:
    result = cli("-C", corpus_dir, "add", _contradicting(tmp_path), "--id", "bad")
    assert result.code == 2
    assert "but the model asked for" in result.err and "contradicting.json" in result.err
    assert not (corpus_dir / "cases/bad").exists()


def test_consistency_validate_names_file_and_line(corpus_dir: Path, cli: Cli) -> None:
    incident = EXAMPLES / "incidents/refund-success.json"
    assert cli("-C", corpus_dir, "add", incident, "--id", "ok").code == 0
    case = corpus_dir / "cases/ok"
    trace = case / "trace.yaml"
    lines = trace.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "type: tool_call" in line)
    arg = next(i for i in range(at, len(lines)) if "order_id:" in lines[i])
    lines[arg] = lines[arg].replace("order_id:", "orderid:")
    trace.write_text("\n".join(lines) + "\n")
    result = cli("-C", corpus_dir, "validate")
    assert result.code == 1
    finding = next(line for line in result.out.splitlines() if "completeness.consistency" in line)
    # the line of the tool call's `arguments:` (the line above the edited argument)
    assert f"cases/{case.name}/trace.yaml:{arg}: [completeness.consistency]" in finding, finding


def test_consistency_example_corpus_still_validates(tmp_path: Path, cli: Cli) -> None:
    shutil.copytree(EXAMPLES / "corpus", tmp_path / "corpus")
    assert cli("-C", tmp_path / "corpus", "validate").code == 0
