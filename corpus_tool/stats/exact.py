"""The live gate's statistics, exact: binomial and hypergeometric sums over `math.comb`.

Notation: base passed `x1` of `n1` attempts, head `x2` of `n2`. docs/gate.md writes every
formula out; the suite checks them against scipy (tests/stats).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile: a two-sided 95% interval."""
POWER = 0.8
"""The power `unchanged` needs, and `k_needed` reaches."""
K_CAP = 100
"""The largest K per side `k_needed` looks at; beyond it, it answers None ("more than 100")."""


@dataclass(frozen=True)
class Interval:
    """A pass rate's 95% Wilson score interval."""

    low: float
    high: float

    def rounded(self) -> tuple[float, float]:
        """(low, high) to 4 places, as the JSON reports give them."""
        return round(self.low, 4), round(self.high, 4)

    def shown(self) -> str:
        return f"[{self.low:.2f}, {self.high:.2f}]"


def wilson(passes: int, k: int, z: float = Z95) -> Interval:
    """(x + z²/2)/(n + z²) ± z·√(x(n−x)/n + z²/4)/(n + z²); [0, 1] for no attempt."""
    if k <= 0:
        return Interval(0.0, 1.0)
    z2 = z * z
    centre = (passes + z2 / 2) / (k + z2)
    half = z * math.sqrt(passes * (k - passes) / k + z2 / 4) / (k + z2)
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


def _tail(x1: int, n1: int, x2: int, n2: int, lower: bool) -> Fraction:
    """P(X2 ≤ x2) (lower) or P(X2 ≥ x2) for X2 hypergeometric given the margins: the head's
    passes among s = x1 + x2 when n2 of the n1 + n2 attempts are the head's."""
    s = x1 + x2
    low, high = max(0, s - n1), min(n2, s)
    span = range(low, x2 + 1) if lower else range(x2, high + 1)
    total = sum(math.comb(n2, j) * math.comb(n1, s - j) for j in span)
    return Fraction(total, math.comb(n1 + n2, s))


def fisher_drop(x1: int, n1: int, x2: int, n2: int) -> float:
    """One-sided Fisher exact p that the head's pass rate is lower than the base's."""
    return float(_tail(x1, n1, x2, n2, lower=True))


def fisher_rise(x1: int, n1: int, x2: int, n2: int) -> float:
    """One-sided Fisher exact p that the head's pass rate is higher than the base's."""
    return float(_tail(x1, n1, x2, n2, lower=False))


def below(p: float, alpha: float) -> bool:
    """p < alpha, alpha read as the decimal it was written as (0.05 is 1/20)."""
    return Fraction(p) < Fraction(str(alpha))


def _binomial(n: int, p: float) -> list[float]:
    return [math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)]


@lru_cache(maxsize=4096)
def _rejects(n1: int, n2: int, alpha: str) -> tuple[tuple[bool, ...], ...]:
    """rejects[x1][x2]: the one-sided drop test at `alpha` rejects the table (exact: integer
    cumulative sums of the hypergeometric numerators against alpha · C(n1 + n2, s))."""
    level = Fraction(alpha)
    row1 = [math.comb(n1, i) for i in range(n1 + 1)]
    row2 = [math.comb(n2, j) for j in range(n2 + 1)]
    rejects = [[False] * (n2 + 1) for _ in range(n1 + 1)]
    for s in range(n1 + n2 + 1):
        bound = level * math.comb(n1 + n2, s)
        cumulative = 0
        for x2 in range(max(0, s - n1), min(n2, s) + 1):
            cumulative += row2[x2] * row1[s - x2]
            rejects[s - x2][x2] = cumulative < bound
    return tuple(tuple(row) for row in rejects)


def power(p0: float, drop: float, n1: int, n2: int, alpha: float) -> float:
    """The exact power of the one-sided Fisher drop test at `alpha`, base n1 and head n2
    attempts, when the base passes at rate p0 and the head at max(0, p0 − drop):
    Σ over x1, x2 of Bin(x1; n1, p0) · Bin(x2; n2, p1) · [Fisher p(x1, x2) < alpha]."""
    if n1 <= 0 or n2 <= 0:
        return 0.0
    p1 = max(0.0, p0 - drop)
    rejects = _rejects(n1, n2, str(alpha))
    base, head = _binomial(n1, p0), _binomial(n2, p1)
    return sum(
        base[x1] * head[x2] for x1 in range(n1 + 1) for x2 in range(n2 + 1) if rejects[x1][x2]
    )


@lru_cache(maxsize=1024)
def k_needed(p0: float, drop: float, alpha: float, cap: int = K_CAP) -> int | None:
    """The smallest K (attempts per side) whose drop test has power ≥ 0.8 for a drop of
    `drop` from base rate p0 at `alpha`; None when no K up to `cap` has."""
    for k in range(1, cap + 1):
        if power(p0, drop, k, k, alpha) >= POWER:
            return k
    return None


@dataclass(frozen=True)
class SignTest:
    """Across cases: how many dropped, how many rose (ties left out), one-sided p."""

    drops: int
    rises: int
    p_value: float


def sign_test(differences: Sequence[float]) -> SignTest:
    """The exact sign test that head rates are lower: p = P(Bin(n, ½) ≥ drops), n the
    cases whose rate changed; p = 1 when none changed."""
    drops = sum(1 for d in differences if d < 0)
    rises = sum(1 for d in differences if d > 0)
    n = drops + rises
    tail = sum(math.comb(n, i) for i in range(drops, n + 1))
    return SignTest(drops, rises, float(Fraction(tail, 2**n)))


def holm(p_values: Sequence[float], alpha: float) -> tuple[float, ...]:
    """Holm–Bonferroni: each p's level, in the input's order. The i-th smallest (from 0) of m
    is tested at alpha/(m − i) while every smaller one was rejected; after the first one not
    rejected, every larger p gets level 0 (rejects nothing)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    levels = [0.0] * m
    for rank, index in enumerate(order):
        level = alpha / (m - rank)
        levels[index] = level
        if not below(p_values[index], level):
            break
    return tuple(levels)
