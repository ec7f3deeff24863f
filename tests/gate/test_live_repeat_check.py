"""`corpus check --model live --repeat K`: per case passes of K, pass@K, pass^K and a 95%
Wilson interval in the text report, the results document (every attempt kept) and JUnit."""

from __future__ import annotations

import json
import math
from pathlib import Path

from corpus_tool.testing.scripted_model import CaseScript, ModelScript
from tests.conftest import Cli
from tests.gate.live_repo import ORDER, live_repo
from tests.replay.live_corpus import provider

__all__ = ["provider"]  # the fixture, used by name


def _wilson(x: int, n: int) -> tuple[float, float]:
    """The Wilson score interval written out here, apart from corpus_tool.stats."""
    z = 1.959963984540054
    centre = (x + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(x * (n - x) / n + z * z / 4)
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def test_check_repeat_reports_pass_at_k_pass_hat_k_and_the_interval_everywhere(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    root = live_repo(tmp_path)  # refund-success alone
    provider.cases = {ORDER: CaseScript(0.5)}
    results, junit = tmp_path / "r.json", tmp_path / "j.xml"
    args = ("check", "--model", "live", "--repeat", "10")
    code, out, err = cli("-C", root, *args, "--results", results, "--junit", junit)
    case = json.loads(results.read_text(encoding="utf-8"))["cases"][0]
    runs = case["runs"]
    passes = sum(r["verdict"] == "passed" for r in runs)
    assert len(runs) == 10 and all(r["trajectory"]["events"] for r in runs), case.keys()
    assert [r["attempt"] for r in runs] == list(range(10))
    assert 0 < passes < 10 and case["passes"] == passes and code == 1, out + err
    assert (case["pass_at_k"], case["pass_hat_k"]) == (True, False)
    low, high = _wilson(passes, 10)
    assert case["interval"] == [low, high]
    assert f"(passed {passes} of 10)  pass@10 yes, pass^10 no, 95% [{low:.2f}, {high:.2f}]" in out
    xml = junit.read_text(encoding="utf-8")
    assert 'name="live.pass_at_k" value="true"' in xml
    assert f'name="live.interval" value="{low} {high}"' in xml
    for run in runs:
        assert f'name="live.attempt.{run["attempt"]}" value="{run["verdict"]}"' in xml
