"""The live gate's own overhead: 100 cases x 10 attempts per side, the model's latency out.

Everything `corpus gate` does once the attempts are answered is timed as a user runs it: a
fresh `corpus gate BASE.json HEAD.json --format json --markdown FILE` process reading two
results documents of live cases (each attempt's verdict and model calls kept, as `--model
live --repeat 10` writes them), the exact tests per case (Fisher, power, the K needed), Holm,
the sign test, and the reports. The documents are generated here from seeded pass rates, so
no model answers at all: the instant model's latency is nil by construction. The replays
themselves are `check`'s and `live`'s figures. The baseline is the same gate over the same
cases with one attempt each (today's one-run gate): the difference is what K = 10 and the
statistics add. Also timed, in this process: `--repeat auto`'s settle check after each round
(gate/rounds.py) over the 100 cases.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from corpus_tool.version import __version__

CASES, K, CALLS = 100, 10, 3
VERDICTS = ("passed", "failed", "error", "known_unknown", "skipped", "waived", "flaky")


def documents(work: Path, k: int, cases: int = CASES) -> tuple[Path, Path]:
    """base.json and head.json of `cases` live cases, `k` attempts each, seeded rates."""
    rng = random.Random(24)
    rates = [rng.choice((0.5, 0.7, 0.8, 0.9, 0.95, 1.0)) for _ in range(cases)]
    made = []
    for side, drop in (("base", 0.0), ("head", 0.1)):
        entries = [
            _case(i, max(0.0, rate - drop * (i % 3 == 0)), k, side) for i, rate in enumerate(rates)
        ]
        summary = {v: sum(e["verdict"] == v for e in entries) for v in VERDICTS}
        doc = {
            "schema_version": 1,
            "tool": {"name": "corpus-tool", "version": __version__},
            "command": "check",
            "corpus": "bench-live-gate",
            "summary": {"total": len(entries), **summary},
            "cases": entries,
        }
        path = work / f"gate-{side}-k{k}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        made.append(path)
    return made[0], made[1]


def _case(index: int, rate: float, k: int, side: str) -> dict[str, Any]:
    draws = [random.Random(f"{side}:{index}:{i}").random() < rate for i in range(k)]
    passes = sum(draws)
    verdict = "passed" if passes == k else ("failed" if passes == 0 else "flaky")
    calls = [
        {
            "attempt": a,
            "step": s + 1,
            "model": "bench-model",
            "input_tokens": 120,
            "output_tokens": 30,
            "duration_ms": 0.0,
            "provider_errors": [],
            "failed": False,
        }
        for a in range(k)
        for s in range(CALLS)
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
        "case": f"case-{index:03d}",
        "verdict": verdict,
        "status": "active",
        "tier": "fast",
        "tags": [],
        "mode": "live",
        "duration_ms": 1.0,
        "failed_checks": [] if passes == k else ["tools.required"],
        "divergence": None,
        "live": {
            "live_from": None,
            "input_tokens": 120 * len(calls),
            "output_tokens": 30 * len(calls),
            "model_ms": 0.0,
            "calls": calls,
        },
        "provider_errors": [],
        "unmatched": [],
        "attempts": k,
        "passes": passes,
        "k": k,
        **({"runs": runs} if k > 1 else {}),
    }


def settle_ms(base: Path, head: Path) -> float:
    """--repeat auto's settle check of every case, as after a round (median of 5, ms)."""
    from corpus_tool.gate.rounds import still_open
    from corpus_tool.model.config import GateSection
    from corpus_tool.model.results import read_results

    first, second = read_results(base), read_results(head)
    ids = [c.case for c in first.cases]
    times = []
    for _ in range(5):
        started = time.perf_counter()
        still_open(first, second, ids, K, GateSection())
        times.append((time.perf_counter() - started) * 1000)
    return sorted(times)[2]
