"""The live gate over many cases from two results documents: the sign test across cases says
`suite regression` when every case drops a little and none enough alone; it blocks only with
gate.block_on_suite. The Markdown report carries each case's passes, interval and verdict."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import yaml

from corpus_tool.testing.scripted_model import ModelScript
from tests.conftest import Cli
from tests.replay.live_corpus import live_corpus, provider

__all__ = ["provider"]  # the fixture, used by name

CASES = 10


def _documents(cli: Cli, tmp_path: Path) -> tuple[Path, Path, Path]:
    """A real live results document, its case copied to 10 ids: base 10/10 each, head 9/10."""
    root = live_corpus(tmp_path)
    real = tmp_path / "real.json"
    args = ("replay", "refund-success", "--model", "live", "--repeat", "2", "--results", real)
    assert cli("-C", root, *args).code == 0
    doc = json.loads(real.read_text(encoding="utf-8"))
    made = []
    for side, passes in (("base", 10), ("head", 9)):
        side_doc = copy.deepcopy(doc)
        entry = side_doc["cases"][0]
        entry.pop("runs", None)
        entry.update(attempts=10, k=10, passes=passes, pass_hat_k=passes == 10)
        entry["verdict"] = "passed" if passes == 10 else "flaky"
        side_doc["cases"] = [{**entry, "case": f"case-{i:02d}"} for i in range(CASES)]
        side_doc["summary"] = {"total": CASES, "passed": CASES * (passes == 10)}
        side_doc["summary"]["flaky"] = CASES - side_doc["summary"]["passed"]
        for verdict in ("failed", "error", "known_unknown", "skipped", "waived"):
            side_doc["summary"][verdict] = 0
        path = tmp_path / f"{side}.json"
        path.write_text(json.dumps(side_doc), encoding="utf-8")
        made.append(path)
    return made[0], made[1], root


def test_many_small_drops_are_a_suite_regression_that_blocks_only_when_asked(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    base, head, root = _documents(cli, tmp_path)
    md = tmp_path / "gate.md"
    code, out, err = cli("-C", root, "gate", base, head, "--format", "json", "--markdown", md)
    assert code == 0, out + err
    doc = json.loads(out)
    suite = doc["live"]["suite"]
    assert (suite["drops"], suite["rises"], suite["statistic"]) == (CASES, 0, CASES)
    assert suite["p_value"] == round(0.5**CASES, 6) and suite["suite_regression"] is True
    assert suite["blocks"] is False
    assert {c["verdict"] for c in doc["cases"]} == {"insufficient_data"}
    case = doc["cases"][0]["live"]
    expected_p = math.comb(10, 9) * math.comb(10, 10) / math.comb(20, 19)  # P(X2 = 9 | 19)
    assert case["p_value"] == round(expected_p, 6) and case["alpha"] == 0.05
    assert (case["base"]["passes"], case["head"]["passes"], case["head"]["k"]) == (10, 9, 10)
    text = md.read_text(encoding="utf-8")
    assert "| case | base | head | p | verdict |" in text
    assert "| `case-00` | 10/10 [0.72, 1.00] | 9/10 [0.60, 0.98] | 0.5 | insufficient data" in text
    assert "suite regression (reported, not blocking)" in text

    config = yaml.safe_load((root / "corpus.yaml").read_text(encoding="utf-8"))
    config["gate"] = {"block_on_suite": True}
    (root / "corpus.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    code, out, err = cli("-C", root, "gate", base, head)
    assert code == 1, out + err
    assert out.rstrip().endswith("gate: BLOCKED (suite regression: gate.block_on_suite is true)")
