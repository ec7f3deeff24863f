"""Each detector: its positives are found whole, its negatives are not flagged by it."""

from __future__ import annotations

import pytest

from corpus_tool.redact import DETECTORS, scan
from corpus_tool.redact.matcher import default_matcher, split_first

from .examples import NEGATIVE, POSITIVE


def _cases(table: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(kind, value) for kind, values in table.items() for value in values]


def test_every_detector_has_examples() -> None:
    names = {d.name for d in DETECTORS}
    assert names == set(POSITIVE) == set(NEGATIVE)


@pytest.mark.parametrize(("kind", "value"), _cases(POSITIVE))
def test_detector_finds_positive(kind: str, value: str) -> None:
    text = f"note: {value} (end)"
    hits = [(text[h.start : h.end], h.detector.name) for h in default_matcher().find(text)]
    assert hits == [(value, kind)]


@pytest.mark.parametrize(("kind", "value"), _cases(NEGATIVE))
def test_detector_skips_negative(kind: str, value: str) -> None:
    text = f"note: {value} (end)"
    assert kind not in [h.detector for h in scan(text)]


@pytest.mark.parametrize("detector", DETECTORS, ids=lambda d: d.name)
def test_detector_pattern_starts_with_one_character(detector: object) -> None:
    first, rest = split_first(detector.pattern)  # type: ignore[attr-defined]
    assert first and rest
