"""Aligning two step sequences by their longest common subsequence, so one inserted step does
not make every later step differ."""

from __future__ import annotations

import difflib
from collections.abc import Hashable, Sequence

Pair = tuple[int | None, int | None]
"""(index in A, index in B); None on the side that lacks the step."""

MAX_CELLS = 4_000_000
"""Past this many table cells (about 2,000 x 2,000 differing steps) the exact LCS would take
seconds and hundreds of MB; difflib's matcher (no junk heuristic) stands in."""


def align(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[Pair]:
    """Every step of A and B once, in order; equal keys matched along an LCS.

    Where both sides have unmatched steps between two matches, A's come first.
    """
    head = _common_prefix(a, b)
    tail = _common_prefix(a[head:][::-1], b[head:][::-1])
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    matches = [(head + i, head + j) for i, j in _matches(mid_a, mid_b)]
    matches = [(i, i) for i in range(head)] + matches
    matches += [(len(a) - tail + k, len(b) - tail + k) for k in range(tail)]
    return _with_gaps(matches, len(a), len(b))


def _common_prefix(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _matches(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    if not a or not b:
        return []
    if len(a) * len(b) > MAX_CELLS:
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        return [
            (block.a + k, block.b + k)
            for block in matcher.get_matching_blocks()
            for k in range(block.size)
        ]
    return _lcs(a, b)


def _lcs(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """The classic table, walked back; ties prefer the earliest match in A (deterministic)."""
    rows, cols = len(a), len(b)
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        row, below = table[i], table[i + 1]
        for j in range(cols - 1, -1, -1):
            row[j] = below[j + 1] + 1 if a[i] == b[j] else max(below[j], row[j + 1])
    pairs, i, j = [], 0, 0
    while i < rows and j < cols:
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _with_gaps(matches: list[tuple[int, int]], len_a: int, len_b: int) -> list[Pair]:
    out: list[Pair] = []
    i = j = 0
    for mi, mj in [*matches, (len_a, len_b)]:
        out.extend((k, None) for k in range(i, mi))
        out.extend((None, k) for k in range(j, mj))
        if mi < len_a and mj < len_b:
            out.append((mi, mj))
        i, j = mi + 1, mj + 1
    return out
