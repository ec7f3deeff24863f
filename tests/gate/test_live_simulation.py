"""The live gate's decision code (gate/live.py, gate/rounds.py: everything after the replays)
over seeded simulated attempts: 200 gate runs of an unchanged agent on a 10-case corpus, and
--repeat auto against --repeat 10 on the same attempts.

Attempt i of a case on a side passes when random.Random(f"{run}:{case}:{side}:{i}") draws
below the case's rate, so a fixed K and the rounds of --repeat auto see the same attempts."""

from __future__ import annotations

import random

from corpus_tool.gate.live import LiveVerdict, Tally, decide
from corpus_tool.gate.rounds import ROUND, final_verdict, settled
from corpus_tool.model.config import GateSection

RUNS, CASES, K = 200, 10, 10
ALPHA = GateSection().alpha
RATES = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 0.65]
"""The unchanged agent's pass rate per case, the same on both sides."""


def _attempts(run: int, case: int, side: str, rate: float, k: int = K) -> list[bool]:
    return [random.Random(f"{run}:{case}:{side}:{i}").random() < rate for i in range(k)]


def _tally(outcomes: list[bool]) -> Tally:
    return Tally(sum(outcomes), len(outcomes))


def _fixed(run: int, rates: list[float], settings: GateSection) -> dict[str, LiveVerdict]:
    pairs = {
        f"c{c}": (_tally(_attempts(run, c, "base", r)), _tally(_attempts(run, c, "head", r)))
        for c, r in enumerate(rates)
    }
    return {c: v.verdict for c, v in decide(pairs, settings).cases.items()}


def _auto(run: int, case: int, base_rate: float, head_rate: float) -> tuple[LiveVerdict, int]:
    """Rounds of ROUND attempts per side until settled or K: the verdict and attempts used."""
    base, head = _attempts(run, case, "base", base_rate), _attempts(run, case, "head", head_rate)
    done = 0
    while done < K:
        done = min(K, done + ROUND)
        if settled(_tally(base[:done]), _tally(head[:done]), K, GateSection()):
            break
    return final_verdict(_tally(base[:done]), _tally(head[:done]), GateSection()), 2 * done


def test_false_regressions_of_an_unchanged_agent_stay_within_the_documented_bounds() -> None:
    """docs/gate.md: per case at most alpha; per run (no correction) at most 1-(1-alpha)^10;
    with Holm at most alpha per run."""
    plain, holm = GateSection(), GateSection(correction="holm")
    any_plain = any_holm = cases_false = 0
    for run in range(RUNS):
        verdicts = _fixed(run, RATES, plain)
        false = sum(v is LiveVerdict.REGRESSION for v in verdicts.values())
        cases_false += false
        any_plain += false > 0
        any_holm += LiveVerdict.REGRESSION in _fixed(run, RATES, holm).values()
    assert cases_false / (RUNS * CASES) <= ALPHA
    assert any_plain / RUNS <= 1 - (1 - ALPHA) ** CASES
    assert any_holm / RUNS <= ALPHA
    assert any_holm <= any_plain


def test_repeat_auto_gives_the_fixed_k_verdicts_with_fewer_attempts() -> None:
    """On the acceptance rates and the unchanged agent's: every verdict of auto is the one of
    K=10 on the same attempts, so its false-block rate is never higher, with fewer calls."""
    pairs = [(0.9, 0.3), (0.9, 0.85), (0.3, 0.3), (0.4, 0.9)] + [(r, r) for r in RATES]
    used = fixed_blocks = auto_blocks = 0
    for run in range(60):
        for case, (base_rate, head_rate) in enumerate(pairs):
            base = _tally(_attempts(run, case, "base", base_rate))
            head = _tally(_attempts(run, case, "head", head_rate))
            fixed = final_verdict(base, head, GateSection())
            auto, attempts = _auto(run, case, base_rate, head_rate)
            assert auto is fixed, (run, case)
            used += attempts
            fixed_blocks += fixed is LiveVerdict.REGRESSION and base_rate == head_rate
            auto_blocks += auto is LiveVerdict.REGRESSION and base_rate == head_rate
    assert auto_blocks <= fixed_blocks
    assert used < 60 * len(pairs) * 2 * K * 0.9, used  # at least a tenth fewer attempts
