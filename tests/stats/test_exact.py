"""The live gate's statistics against an independent implementation: scipy (test-only)."""

from __future__ import annotations

import itertools
import random

import pytest

from corpus_tool.stats import exact

stats = pytest.importorskip("scipy.stats", reason="scipy (the test extra) checks the formulas")

SIZES = (1, 2, 3, 5, 8, 10)
TABLES = [
    (x1, n1, x2, n2)
    for n1, n2 in itertools.product(SIZES, SIZES)
    for x1 in range(n1 + 1)
    for x2 in range(n2 + 1)
]


def test_wilson_interval_matches_scipy_on_every_count_up_to_30() -> None:
    for k in range(1, 31):
        for passes in range(k + 1):
            theirs = stats.binomtest(passes, k).proportion_ci(0.95, method="wilson")
            ours = exact.wilson(passes, k)
            assert ours.low == pytest.approx(theirs.low, abs=1e-12), (passes, k)
            assert ours.high == pytest.approx(theirs.high, abs=1e-12), (passes, k)


def test_fisher_one_sided_p_values_match_scipy_on_a_grid_of_tables() -> None:
    for x1, n1, x2, n2 in TABLES:
        table = [[x2, n2 - x2], [x1, n1 - x1]]  # row 0 the head: its odds lower is a drop
        drop = stats.fisher_exact(table, alternative="less").pvalue
        rise = stats.fisher_exact(table, alternative="greater").pvalue
        assert exact.fisher_drop(x1, n1, x2, n2) == pytest.approx(drop, rel=1e-9, abs=1e-15)
        assert exact.fisher_rise(x1, n1, x2, n2) == pytest.approx(rise, rel=1e-9, abs=1e-15)


def _scipy_power(p0: float, drop: float, k: int, alpha: float) -> float:
    """Σ Bin·Bin over the tables scipy's Fisher test rejects."""
    p1 = max(0.0, p0 - drop)
    total = 0.0
    for x1 in range(k + 1):
        for x2 in range(k + 1):
            p = stats.fisher_exact([[x2, k - x2], [x1, k - x1]], alternative="less").pvalue
            if p < alpha and p != pytest.approx(alpha, rel=1e-12):
                total += stats.binom.pmf(x1, k, p0) * stats.binom.pmf(x2, k, p1)
    return float(total)


@pytest.mark.parametrize(("p0", "k"), [(0.9, 4), (0.9, 10), (0.7, 8), (0.5, 6), (1.0, 5)])
def test_exact_power_matches_a_sum_over_scipys_fisher_test(p0: float, k: int) -> None:
    ours = exact.power(p0, 0.3, k, k, 0.05)
    assert ours == pytest.approx(_scipy_power(p0, 0.3, k, 0.05), abs=1e-12)


def test_k_needed_is_the_smallest_k_whose_scipy_power_reaches_0_8() -> None:
    k = exact.k_needed(0.9, 0.3, 0.05)
    assert k is not None and k > 10
    assert _scipy_power(0.9, 0.3, k, 0.05) >= 0.8
    assert all(_scipy_power(0.9, 0.3, j, 0.05) < 0.8 for j in range(k - 3, k))
    assert exact.k_needed(0.6, 0.05, 0.05) is None  # beyond K_CAP attempts per side


def test_sign_test_matches_scipys_binomial_test() -> None:
    rng = random.Random(3)
    for _ in range(200):
        diffs = [rng.choice((-0.2, -0.1, 0.0, 0.1, 0.3)) for _ in range(rng.randint(0, 15))]
        ours = exact.sign_test(diffs)
        n = ours.drops + ours.rises
        theirs = stats.binomtest(ours.drops, n, 0.5, alternative="greater").pvalue if n else 1.0
        assert ours.drops == sum(d < 0 for d in diffs)
        assert ours.p_value == pytest.approx(theirs, rel=1e-12)


def test_holm_rejects_what_holms_adjusted_p_values_reject() -> None:
    """Independent formulation: adjusted p_(i) = max_{j ≤ i} min(1, (m − j) p_(j))."""
    rng = random.Random(5)
    for _ in range(300):
        ps = [rng.choice((0.001, 0.004, 0.01, 0.02, 0.03, 0.2, 0.6)) for _ in range(6)]
        order = sorted(range(len(ps)), key=lambda i: ps[i])
        adjusted, running = [0.0] * len(ps), 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
            adjusted[i] = running
        levels = exact.holm(ps, 0.05)
        assert [p < level for p, level in zip(ps, levels, strict=True)] == [
            a < 0.05 for a in adjusted
        ], ps
