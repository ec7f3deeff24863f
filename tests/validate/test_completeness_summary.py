"""A streamed `corpus add` keeps `completeness.summary` of each event, not the event, and runs
the completeness check and the drafted expectations on those summaries. Over every trace of the
examples and seeded damage to them (fields removed, emptied or nulled, as incomplete exports
come), both find what they find on the whole events: a check that reads a field the summary
drops would pass on streamed runs and fail here."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.author.draft import draft
from corpus_tool.validate import completeness
from tests.conftest import ROOT

TRACES = sorted((ROOT / "examples").rglob("trace.yaml"))
DAMAGE = (None, "")  # of the types a schema-valid field may hold where it is optional


def _damaged(body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The body with a few events' fields (and their responses' and requests' fields)
    removed or replaced by an empty value."""
    body = copy.deepcopy(body)
    for event in body["events"]:
        if rng.random() < 0.5:
            continue
        for holder in (event, event.get("response"), event.get("request")):
            if not isinstance(holder, dict) or not holder:
                continue
            key = rng.choice(sorted(holder))
            if key in ("seq", "type"):
                continue
            if rng.random() < 0.5:
                del holder[key]
            else:
                holder[key] = rng.choice(DAMAGE)
    return body


def _summarized(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "events": [completeness.summary(e) for e in body["events"]]}


def _found(body: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(p.where, p.rule, p.message) for p in completeness.problems(body)]


def test_the_examples_hold_traces() -> None:
    assert len(TRACES) >= 5


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: str(p.relative_to(ROOT)))
def test_problems_and_the_draft_of_summaries_are_those_of_the_whole_events(trace: Path) -> None:
    whole = yaml.safe_load(trace.read_text(encoding="utf-8"))
    rng = random.Random(trace.as_posix())
    damaged = [_damaged(whole, rng) for _ in range(40)]
    found_any = False
    for body in [whole, *damaged]:
        found = _found(body)
        found_any = found_any or bool(found)
        assert _found(_summarized(body)) == found
        if body is whole:  # a run is drafted once complete and schema-valid: the undamaged one
            assert draft("c", _summarized(body), "fast", []) == draft("c", body, "fast", [])
    assert found_any  # the damage made some incomplete: the comparison is not of empty lists
