"""200 gate runs of an unchanged agent, every attempt a real live replay: how often the gate
blocks on a false `regression`, against the bounds docs/gate.md states.

The corpus (bench/gate_bench.coin_repo) is a git repository of 10 cases and one agent that asks
the live model once and answers what it said; its `replay.live_model` is a seeded, stochastic,
instant model that says "approved" (the case passes) with a known rate per case, the same on
both sides, drawn per (seed, side, case, n-th ask). Base and head are the same commit: nothing
changed, so every `regression` is a false one.

Each of the RUNS runs has its own seed and makes, through the real commands in this process:
- the fixed-K gate: `corpus check --model live --repeat 10 --results` of the base side, the same
  of the head side (100 real replays each, by the replay engine and its workers), then the real
  `corpus gate BASE.json HEAD.json --format json` on the two documents, once with the per-case
  alpha and once in a copy of the corpus that sets `gate.correction: holm`. The fixed-K side
  goes through `check` and the two documents, not `corpus gate --base --model live --repeat 10`,
  so that both corrections judge the same real attempts (one replay, two verdicts) at the cost
  of one gate run;
- the `--repeat auto` gate: the real `corpus gate --base HEAD --all --model live --repeat auto`
  (a git worktree for base, the working tree for head, rounds of 2 attempts per side) with the
  same seed. The model's answers depend only on (seed, side, case, n), so auto sees the first
  attempts of the same series the fixed-K run saw and must reach the same verdict per case.

What the provider answered is counted from its own book (every answer, one JSON line), never
from the gate: each case's passes and calls in the gate's JSON must be those, and a reported
regression must have fewer passes on head than on base as the provider saw them.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench.gate_bench import coin_repo
from tests.conftest import Cli

RUNS, K, ALPHA = 200, 10, 0.05
RATES = [0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]
CASES = len(RATES)
CHECK = ("check", "--model", "live", "--repeat", str(K))
AUTO = ("gate", "--base", "HEAD", "--all", "--model", "live", "--repeat", "auto")
SEED = "false-blocks"  # run r's seed is f"{SEED}-{r}"


Book = dict[tuple[str, str], tuple[int, int]]
"""(side, case) -> (passes, calls) as the provider answered them."""


def _book(path: Path) -> Book:
    passes: Counter[tuple[str, str]] = Counter()
    calls: Counter[tuple[str, str]] = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        calls[row["side"], row["case"]] += 1
        passes[row["side"], row["case"]] += bool(row["passed"])
    return {key: (passes[key], calls[key]) for key in calls}


def _judged(code: int, out: str, err: str, book: Book) -> dict[str, dict[str, Any]]:
    """The gate's cases by id, checked against the provider's own counts; a regression must
    be a drop the provider's answers show."""
    assert code in (0, 1), out + err
    report = json.loads(out)
    cases = {c["case"]: c for c in report["cases"]}
    assert len(cases) == CASES
    regressions = [c for c in cases.values() if c["verdict"] == "regression"]
    assert (code == 1) == bool(regressions) == (report["verdict"] == "blocked")
    for case, row in cases.items():
        live = row["live"]
        for side in ("base", "head"):
            passes, calls = book[side, case]
            assert (live[side]["passes"], live[side]["k"]) == (passes, calls), (case, side)
        assert live["model_calls"] == book["base", case][1] + book["head", case][1]
    for row in regressions:
        assert book["head", row["case"]][0] < book["base", row["case"]][0], row
    return cases


def _regressions(cases: dict[str, dict[str, Any]]) -> int:
    return sum(c["verdict"] == "regression" for c in cases.values())


def test_an_unchanged_agent_replayed_live_200_times_is_falsely_blocked_within_the_bounds(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = coin_repo(tmp_path / "repo", RATES)
    holm = tmp_path / "holm"  # the same corpus, judged with Holm across the cases
    shutil.copytree(root, holm, ignore=shutil.ignore_patterns(".git"))
    config = holm / "corpus.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "gate: {correction: holm}\n", "utf-8")
    monkeypatch.setenv("COIN_HEAD", str(root))
    blocked: Counter[str] = Counter()  # runs with any regression, by way of judging
    false_cases: Counter[str] = Counter()  # regressions over all runs and cases
    calls: Counter[str] = Counter()  # model calls over all runs, as the provider counted them
    for run in range(RUNS):
        monkeypatch.setenv("COIN_SEED", f"{SEED}-{run}")
        fixed_book, auto_book = tmp_path / f"fixed-{run}.jsonl", tmp_path / f"auto-{run}.jsonl"
        monkeypatch.setenv("COIN_BOOK", str(fixed_book))
        documents = []
        for side in ("base", "head"):
            monkeypatch.setenv("COIN_SIDE", side)
            documents.append(tmp_path / f"{side}.json")
            check = cli("-C", root, *CHECK, "--results", documents[-1])
            assert check.code in (0, 1), check.err
        book = _book(fixed_book)
        calls["fixed"] += sum(calls for _, calls in book.values())
        fixed = {}
        for name, where in (("alpha", root), ("holm", holm)):
            gate = cli("-C", where, "gate", *documents, "--format", "json")
            fixed[name] = _judged(gate.code, gate.out, gate.err, book)
            blocked[name] += gate.code == 1
            false_cases[name] += _regressions(fixed[name])

        monkeypatch.delenv("COIN_SIDE")  # the gate's own two sides: its worktree, the tree
        monkeypatch.setenv("COIN_BOOK", str(auto_book))
        gate = cli("-C", root, *AUTO, "--format", "json")
        book = _book(auto_book)
        calls["auto"] += sum(calls for _, calls in book.values())
        auto = _judged(gate.code, gate.out, gate.err, book)
        blocked["auto"] += gate.code == 1
        false_cases["auto"] += _regressions(auto)
        differ = {c: (r["verdict"], fixed["alpha"][c]["verdict"]) for c, r in auto.items()}
        assert all(a == f for a, f in differ.values()), (run, differ)
    print(
        f"\nfalse blocks over {RUNS} runs: {dict(blocked)}; false regressions over "
        f"{RUNS * CASES} cases: {dict(false_cases)}; model calls: {dict(calls)}"
    )
    assert calls["fixed"] == RUNS * CASES * 2 * K
    assert false_cases["alpha"] / (RUNS * CASES) <= ALPHA
    assert blocked["alpha"] / RUNS <= 1 - (1 - ALPHA) ** CASES
    assert blocked["holm"] / RUNS <= ALPHA
    assert blocked["auto"] <= blocked["alpha"]  # the same verdicts: equal, never higher
    assert calls["auto"] < calls["fixed"]
