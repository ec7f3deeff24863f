"""The units minimization moves, ddmin's search, and the expectations it reports as stale."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
import yaml

from corpus_tool.io import schema
from corpus_tool.minimize.ddmin import ddmin
from corpus_tool.minimize.oracle import Goal, Symptoms
from corpus_tool.minimize.shrink import shrink
from corpus_tool.minimize.stale import stale
from corpus_tool.minimize.units import units
from corpus_tool.model.events import RetryEvent, error_types
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace
from corpus_tool.validate import completeness
from tests.conftest import EXAMPLES

CASES = EXAMPLES / "corpus" / "cases"


def _trace(case: str) -> Trace:
    return Trace.from_doc(yaml.safe_load((CASES / case / "trace.yaml").read_text("utf-8")))


def test_units_keep_a_retry_with_the_call_it_retries() -> None:
    trace = _trace("create-refund-lost-retry")
    by_seq = [[trace.events[i].seq for i in unit] for unit in units(trace.events)]
    # seq 3 asks create_refund (c2); 4 fails, 5 retries it, 6 is the new attempt (same id),
    # 7 the refund_created side effect; seq 8 the final answer
    assert by_seq == [[1, 2], [3, 4, 5, 6, 7], [8]]


def test_units_pair_id_less_calls_by_name_and_keep_agent_calls_apart() -> None:
    trace = _trace("inventory-zero-stock")
    by_seq = [[trace.events[i].seq for i in unit] for unit in units(trace.events)]
    # the model asked search_inventory and get_sales (seq 2, 3); notify_operator is the agent's
    assert by_seq == [[1, 2, 3], [4]]


@pytest.mark.parametrize("case", sorted(p.parent.name for p in CASES.glob("*/trace.yaml")))
def test_every_candidate_is_complete_and_fits_the_schema(case: str) -> None:
    trace = _trace(case)
    allowed = {(p.rule, p.message) for p in completeness.problems(trace.to_doc())}
    seen: list[Trace] = []

    def oracle(candidate: Trace) -> Symptoms:
        seen.append(candidate)
        return Symptoms(error_types=frozenset(error_types(candidate.events)), terminal="failed")

    def pick(whole: Symptoms) -> Goal:
        return Goal("terminal_status", "failed")  # every candidate "reproduces"

    result = shrink(trace, oracle, pick)
    assert len(seen) == result.replays and len(seen) >= 1
    for candidate in seen:
        doc = candidate.to_doc()
        assert {(p.rule, p.message) for p in completeness.problems(doc)} <= allowed
        assert schema.errors("trace", doc) == []
        seqs = {e.seq for e in candidate.events}
        assert all(e.of in seqs for e in candidate.events if isinstance(e, RetryEvent))
    assert len(result.trace.events) <= len(trace.events)


def test_ddmin_finds_exactly_the_needed_items() -> None:
    for count in range(1, 9):
        for size in range(0, 3):
            for needed in itertools.combinations(range(count), size):
                found = ddmin(count, lambda kept, n=needed: set(n) <= set(kept)).kept
                assert set(found) == set(needed) or (not needed and len(found) == 1)


def test_stale_names_removed_trigger_seq_and_tools() -> None:
    before = _trace("refund-success")
    after = dataclasses.replace(before, events=before.events[2:])  # get_order's turn removed
    expected = Expected.from_doc(
        {
            "id": "refund-success",
            "status": "active",
            "tier": "fast",
            "owner": "o",
            "trigger": {"error_type": "X", "seq": 2},
            "expect": {
                "tools": {"required": ["get_order", "create_refund"], "order": [["get_order"]]},
                "side_effects": [{"type": "refund_created", "count": 1}],
            },
        }
    )
    assert stale(expected, before, after) == [
        "trigger.seq 2 names a removed event",
        "expect.tools.required names get_order, which the minimized trace no longer calls",
        "expect.tools.order names get_order, which the minimized trace no longer calls",
    ]
