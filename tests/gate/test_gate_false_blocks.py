"""200 runs of the real `corpus gate BASE.json HEAD.json` (the command a user runs, reading two
results documents of `--model live --repeat 10` runs) for an unchanged agent: both sides' attempts
drawn at the same pass rate per case, seeded. The fraction of gate runs that block on a false
`regression` stays within the bounds docs/gate.md states (per case at most alpha; per run, without
a correction, at most 1 - (1 - alpha)^10; with `gate.correction: holm`, at most alpha).

The attempts are simulated, not replayed (200 x 10 cases x 20 replays would take the suite an
hour); everything after the replays is the command itself: reading the documents, the exact test
per case, Holm, the verdict and the exit code. tests/gate/test_live_simulation.py runs the same
question on the decision functions alone, and test_gate_live.py the verdicts over real replays.
The pass/fail counts here are drawn by this file's own generator, never read back from the gate.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.conftest import Cli

RUNS, CASES, K, ALPHA = 200, 10, 10, 0.05
RATES = [0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]


def _entry(case: int, draws: list[bool]) -> dict[str, Any]:
    passes = sum(draws)
    verdict = "passed" if passes == K else ("failed" if passes == 0 else "flaky")
    calls = [
        {
            "attempt": a,
            "step": 1,
            "model": "scripted-model",
            "input_tokens": 1,
            "output_tokens": 1,
            "duration_ms": 0.0,
            "provider_errors": [],
            "failed": False,
        }
        for a in range(K)
    ]
    runs = [
        {
            "attempt": a,
            "verdict": "passed" if ok else "failed",
            "failed_checks": [] if ok else ["tools.required"],
        }
        for a, ok in enumerate(draws)
    ]
    return {
        "case": f"case-{case}",
        "verdict": verdict,
        "status": "active",
        "tier": "fast",
        "tags": [],
        "mode": "live",
        "duration_ms": 1.0,
        "failed_checks": [] if passes == K else ["tools.required"],
        "divergence": None,
        "live": {
            "live_from": None,
            "input_tokens": K,
            "output_tokens": K,
            "model_ms": 0.0,
            "calls": calls,
        },
        "provider_errors": [],
        "unmatched": [],
        "attempts": K,
        "passes": passes,
        "k": K,
        "runs": runs,
    }


def _side(path: Path, run: int, side: str) -> list[int]:
    """One side's results document; returns the pass count per case, as drawn."""
    draws = [
        [random.Random(f"{run}:{side}:{c}:{i}").random() < rate for i in range(K)]
        for c, rate in enumerate(RATES)
    ]
    entries = [_entry(c, d) for c, d in enumerate(draws)]
    summary = {v: sum(e["verdict"] == v for e in entries) for v in ("passed", "failed", "flaky")}
    doc = {
        "schema_version": 1,
        "tool": {"name": "corpus-tool", "version": "0"},
        "command": "check",
        "corpus": "false-blocks",
        "summary": {
            "total": CASES,
            "error": 0,
            "known_unknown": 0,
            "skipped": 0,
            "waived": 0,
            **summary,
        },
        "cases": entries,
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return [sum(d) for d in draws]


def _gate_runs(cli: Cli, root: Path) -> tuple[int, int, int]:
    """(runs blocked, false regressions over all cases, runs whose drawn counts never dropped
    yet blocked) over RUNS gate runs in the corpus at root."""
    blocked = false_cases = impossible = 0
    for run in range(RUNS):
        base, head = root / "base.json", root / "head.json"
        base_counts, head_counts = _side(base, run, "base"), _side(head, run, "head")
        code, out, err = cli("-C", root, "gate", base, head, "--format", "json")
        assert code in (0, 1), err
        report = json.loads(out)
        regressions = [c for c in report["cases"] if c["verdict"] == "regression"]
        assert (code == 1) == bool(regressions) == (report["verdict"] == "blocked")
        blocked += code == 1
        false_cases += len(regressions)
        for row in regressions:  # a regression needs head's count below base's, as drawn
            index = int(row["case"].split("-")[1])
            impossible += head_counts[index] >= base_counts[index]
    return blocked, false_cases, impossible


def test_an_unchanged_agent_is_falsely_blocked_within_the_per_case_bound(
    cli: Cli, corpus_dir: Path
) -> None:
    blocked, false_cases, impossible = _gate_runs(cli, corpus_dir)
    assert impossible == 0
    assert false_cases / (RUNS * CASES) <= ALPHA
    assert blocked / RUNS <= 1 - (1 - ALPHA) ** CASES


def test_with_holm_an_unchanged_agent_is_falsely_blocked_in_at_most_alpha_of_runs(
    cli: Cli, corpus_dir: Path
) -> None:
    config = corpus_dir / "corpus.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "gate:\n  correction: holm\n")
    blocked, _, impossible = _gate_runs(cli, corpus_dir)
    assert impossible == 0
    assert blocked / RUNS <= ALPHA
