"""One combined matcher: every detector's pattern in one compiled alternation, one pass a string.

Each alternative is ``first (?P<name>) (?<!before.) rest``: it starts with the detector's first
character (a literal or a class), so the regex engine rules a detector out at a position with one
comparison, and an empty named group right after that character tells which alternative matched.
When that detector rejects its candidate (a failing checksum, a pseudonym), the detectors after
it get their turn at the same position before the search moves on, so an ordering choice never
hides a value.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from corpus_tool.redact.detectors import DETECTORS, Detector


class Hit(NamedTuple):
    """One accepted value in a string: text[start:end], found by detector."""

    start: int
    end: int
    detector: Detector


class Matcher:
    """Finds detected values in strings with one compiled alternation."""

    def __init__(self, detectors: Sequence[Detector]):
        self._detectors = tuple(detectors)
        self._index = {d.name: i for i, d in enumerate(self._detectors)}
        self._combined = re.compile("|".join(_alternative(d) for d in self._detectors))
        # each detector's own pattern, compiled when a candidate of an earlier detector at the
        # same position was rejected (rare): most runs never need one, and each start saves
        # compiling them all
        self._single: list[re.Pattern[str] | None] = [None] * len(self._detectors)

    def may_hold(self, text: str) -> bool:
        """False when no detector's pattern matches anywhere in text (so `find` yields
        nothing): one search, without the generator and its acceptance."""
        return self._combined.search(text) is not None

    def find(self, text: str) -> Iterator[Hit]:
        """Accepted values in text, left to right, never overlapping."""
        pos = 0
        search = self._combined.search
        while (found := search(text, pos)) is not None:
            hit = self._accept(text, found, pos)
            if hit is None:
                pos = found.start() + 1
            else:
                yield hit
                pos = hit.end

    def _accept(self, text: str, found: re.Match[str], floor: int) -> Hit | None:
        first = self._index[found.lastgroup or ""]
        at = found.start()
        for i in range(first, len(self._detectors)):
            candidate = found if i == first else self._standalone(i).match(text, at)
            if candidate is None:
                continue
            detector = self._detectors[i]
            start = _extend_left(text, at, floor, detector.left)
            seen = text[start : candidate.end()]
            value = detector.accept(seen)
            if value:
                start += seen.find(value)  # accept may trim either end
                return Hit(start, start + len(value), detector)
        return None

    def _standalone(self, i: int) -> re.Pattern[str]:
        single = self._single[i]
        if single is None:
            single = self._single[i] = re.compile(_standalone(self._detectors[i]))
        return single


def _extend_left(text: str, at: int, floor: int, chars: frozenset[str]) -> int:
    while at > floor and text[at - 1] in chars:
        at -= 1
    return at


def _alternative(detector: Detector) -> str:
    first, rest = split_first(detector.pattern)
    guard = f"(?<!{detector.before}.)" if detector.before else ""
    return f"{first}(?P<{detector.name}>){guard}{rest}"


def _standalone(detector: Detector) -> str:
    return (f"(?<!{detector.before})" if detector.before else "") + detector.pattern


def split_first(pattern: str) -> tuple[str, str]:
    """Split a pattern into its first element (one literal, escape or class) and the rest."""
    if pattern.startswith("\\"):
        cut = 2
    elif pattern.startswith("["):
        cut = pattern.index("]", 2) + 1
    elif pattern[:1] in ("(", ")", "|", "*", "+", "?", "{", "."):
        raise ValueError(f"pattern must start with one literal or class: {pattern[:20]!r}")
    else:
        cut = 1
    if pattern[cut : cut + 1] in ("*", "?", "{"):
        raise ValueError(f"pattern's first element must not be optional: {pattern[:20]!r}")
    return pattern[:cut], pattern[cut:]


@functools.cache
def default_matcher() -> Matcher:
    """The matcher over every registered detector, compiled once per process."""
    return Matcher(DETECTORS)
