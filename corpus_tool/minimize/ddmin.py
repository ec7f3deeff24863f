"""Delta debugging (Zeller's ddmin) over a list of items, with a budget of tests.

Pure: the test is passed in, answers are cached by the subset tried, and the order of tries
is fixed, so the same input and the same test give the same result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

Test = Callable[[tuple[int, ...]], bool]
"""Does this subset (ascending item indexes) still reproduce? May raise `Exhausted`."""


class Exhausted(Exception):
    """The test budget ran out; the smallest subset found so far stands."""


@dataclass(frozen=True)
class Reduction:
    """The smallest subset found, and whether the search stopped at the budget."""

    kept: tuple[int, ...]
    exhausted: bool


def ddmin(count: int, test: Test) -> Reduction:
    """A 1-minimal subset of range(count) for which `test` holds (the whole set is assumed to).

    1-minimal: removing any single item makes the test fail, unless the budget ran out first.
    """
    cache: dict[tuple[int, ...], bool] = {}

    def cached(subset: tuple[int, ...]) -> bool:
        if subset not in cache:
            cache[subset] = test(subset)
        return cache[subset]

    return _search(tuple(range(count)), cached)


def _search(current: tuple[int, ...], test: Test) -> Reduction:
    granularity = 2
    while len(current) >= 2:
        try:
            found = _reduce(current, granularity, test)
        except Exhausted:
            return Reduction(current, True)
        if found is not None:
            current, granularity = found
            continue
        if granularity >= len(current):
            break
        granularity = min(len(current), granularity * 2)
    return Reduction(current, False)


def _reduce(
    current: tuple[int, ...], granularity: int, test: Test
) -> tuple[tuple[int, ...], int] | None:
    """A smaller passing subset (and the granularity to go on with), or None."""
    chunks = _split(current, granularity)
    for chunk in chunks:
        if len(chunk) < len(current) and test(chunk):
            return chunk, 2
    if granularity == 2:
        return None  # with two chunks each complement is the other chunk: already tried
    for chunk in chunks:
        rest = tuple(i for i in current if i not in chunk)
        if test(rest):
            return rest, max(granularity - 1, 2)
    return None


def _split(items: Sequence[int], parts: int) -> list[tuple[int, ...]]:
    """`items` in `parts` contiguous chunks of near-equal size (the larger ones first)."""
    size, extra = divmod(len(items), parts)
    chunks, start = [], 0
    for k in range(parts):
        end = start + size + (1 if k < extra else 0)
        chunks.append(tuple(items[start:end]))
        start = end
    return [c for c in chunks if c]
