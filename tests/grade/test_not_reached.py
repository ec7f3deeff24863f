"""A run cut short by a divergence: each check is decided only where every completion agrees.

Each row states a cut-short trajectory, what the recording could still answer (`left`), and the
outcome the rule of docs/grading.md ("Not reached") gives, reasoned by hand in the row's id:
`failed` when no completion can pass the check, `passed` when none can fail it, `not_reached`
when it depends on what the run would have done next.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from corpus_tool.grade import grade_run
from corpus_tool.grade.from_files import expect_from_doc, trajectory_from_docs
from corpus_tool.model.cut import CutShort
from tests.grade.grade_trajectories import call, effect, error, model, retry

SO_FAR = [model(1), call(2, "get_order", {"order_id": "O-1"}, egress="orders.internal")]


def row(
    why: str,
    expect: dict[str, Any],
    events: list[dict[str, Any]],
    left: dict[str, int | None],
    outcome: str,
    hosts: dict[str, tuple[str, ...]] | None = None,
) -> Any:
    return pytest.param(expect, events, left, hosts or {}, outcome, id=why)


REFUND = {"tool": "create_refund", "match": {"amount": 5900}}
ROWS = [
    row("required-missing-but-answerable", {"tools": {"required": ["create_refund"]}}, SO_FAR,
        {"create_refund": 1}, "not_reached"),
    row("required-missing-and-unanswerable", {"tools": {"required": ["create_refund"]}}, SO_FAR,
        {}, "failed"),
    row("required-already-called", {"tools": {"required": ["get_order"]}}, SO_FAR,
        {"create_refund": 1}, "passed"),
    row("forbidden-called", {"tools": {"forbidden": ["get_order"]}}, SO_FAR, {}, "failed"),
    row("forbidden-could-still-come", {"tools": {"forbidden": ["create_refund"]}}, SO_FAR,
        {"create_refund": 1}, "not_reached"),
    row("forbidden-cannot-come", {"tools": {"forbidden": ["create_refund"]}}, SO_FAR,
        {"get_order": 2}, "passed"),
    row("allowed-outside-call", {"tools": {"allowed": ["create_refund"]}}, SO_FAR, {}, "failed"),
    row("allowed-stubbed-outsider-could-come", {"tools": {"allowed": ["get_order"]}}, SO_FAR,
        {"notify": None}, "not_reached"),
    row("allowed-only-allowed-left", {"tools": {"allowed": ["get_order"]}}, SO_FAR,
        {"get_order": 3}, "passed"),
    row("order-tail-answerable", {"tools": {"order": [["get_order", "create_refund"]]}}, SO_FAR,
        {"create_refund": 1}, "not_reached"),
    row("order-tail-unanswerable", {"tools": {"order": [["get_order", "create_refund"]]}},
        SO_FAR, {"get_order": 1}, "failed"),
    row("order-tail-one-step-unanswerable",
        {"tools": {"order": [["get_order", "create_refund", "pay"]]}}, SO_FAR,
        {"create_refund": 1}, "failed"),
    row("order-tail-all-answerable",
        {"tools": {"order": [["get_order", "create_refund", "pay"]]}}, SO_FAR,
        {"create_refund": 1, "pay": None}, "not_reached"),
    row("args-attempt-differs-none-left", {"tools": {"args": [REFUND]}},
        [*SO_FAR, call(3, "create_refund", {"amount": 59})], {"create_refund": 0}, "failed"),
    row("args-attempt-differs-one-left", {"tools": {"args": [REFUND]}},
        [*SO_FAR, call(3, "create_refund", {"amount": 59})], {"create_refund": 1},
        "not_reached"),
    row("args-never-called-answerable", {"tools": {"args": [REFUND]}}, SO_FAR,
        {"create_refund": 1}, "not_reached"),
    row("max-calls-exceeded", {"tools": {"max_calls": {"get_order": 0}}}, SO_FAR, {}, "failed"),
    row("max-calls-could-be-exceeded", {"tools": {"max_calls": {"get_order": 1}}}, SO_FAR,
        {"get_order": 1}, "not_reached"),
    row("max-calls-cannot-be-exceeded", {"tools": {"max_calls": {"get_order": 2}}}, SO_FAR,
        {"get_order": 1}, "passed"),
    row("errors-forbidden-occurred", {"errors": {"forbidden": ["ZeroDivisionError"]}},
        [*SO_FAR, error(3, "ZeroDivisionError")], {}, "failed"),
    row("errors-forbidden-may-yet-occur", {"errors": {"forbidden": ["ZeroDivisionError"]}},
        SO_FAR, {}, "not_reached"),
    row("errors-required-occurred", {"errors": {"required": ["ZeroDivisionError"]}},
        [*SO_FAR, error(3, "ZeroDivisionError")], {}, "passed"),
    row("errors-required-may-yet-occur", {"errors": {"required": ["OutOfStock"]}}, SO_FAR, {},
        "not_reached"),
    row("retries-over", {"retries": {"max": 0}}, [*SO_FAR, retry(3, 2)], {}, "failed"),
    row("retries-under-may-grow", {"retries": {"max": 1}}, SO_FAR, {}, "not_reached"),
    row("egress-bad-host-reached", {"egress": {"allowed": ["payments.internal"]}}, SO_FAR, {},
        "failed"),
    row("egress-bad-host-still-answerable", {"egress": {"allowed": ["orders.internal"]}}, SO_FAR,
        {"pay": 1}, "not_reached", {"pay": ("evil.example",)}),
    row("egress-only-good-hosts-left", {"egress": {"allowed": ["orders.internal"]}}, SO_FAR,
        {"get_order": 1}, "passed", {"get_order": ("orders.internal",)}),
    row("effects-too-many", {"side_effects": [{"type": "refund_created", "count": 1}]},
        [*SO_FAR, effect(3, "refund_created"), effect(4, "refund_created")], {}, "failed"),
    row("effects-too-few-so-far", {"side_effects": [{"type": "refund_created", "count": 1}]},
        SO_FAR, {}, "not_reached"),
    row("effects-exact-may-grow", {"side_effects": [{"type": "refund_created", "count": 1}]},
        [*SO_FAR, effect(3, "refund_created")], {}, "not_reached"),
    row("idempotency-bad-repeat", {"idempotency": {"tools": ["pay"]}},
        [call(1, "pay", {"n": 1}, key="k1"), call(2, "pay", {"n": 1}, key="k2")], {}, "failed"),
    row("idempotency-repeat-may-come", {"idempotency": {"tools": ["pay"]}},
        [call(1, "pay", {"n": 1}, key="k1")], {"pay": 1}, "not_reached"),
    row("idempotency-no-repeat-possible", {"idempotency": {"tools": ["pay"]}},
        [call(1, "pay", {"n": 1}, key="k1")], {"get_order": 1}, "passed"),
    row("terminal-never-reached", {"terminal": {"status": "unknown"}}, SO_FAR, {},
        "not_reached"),
    row("output-never-produced", {"output": {"not_contains": ["1.99"]}}, SO_FAR, {},
        "not_reached"),
]  # fmt: skip


@pytest.mark.parametrize(("expect", "events", "left", "hosts", "outcome"), ROWS)
def test_cut_short_check_outcome(
    expect: dict[str, Any],
    events: list[dict[str, Any]],
    left: dict[str, int | None],
    hosts: dict[str, tuple[str, ...]],
    outcome: str,
) -> None:
    whole = trajectory_from_docs(events, {"status": "unknown", "output": None})
    cut = CutShort("ToolArguments", len(events), left, hosts)
    (result,) = grade_run(expect_from_doc(expect), replace(whole, cut=cut))
    assert result.outcome == outcome, result.message
    assert result.failed is (outcome == "failed")
    if outcome == "not_reached":
        assert result.message.startswith(
            f"not reached (the run stopped at the ToolArguments divergence at step {len(events)})"
        )


@pytest.mark.parametrize(("expect", "events", "left", "hosts", "outcome"), ROWS)
def test_a_finished_run_is_graded_as_it_ended(
    expect: dict[str, Any],
    events: list[dict[str, Any]],
    left: dict[str, int | None],
    hosts: dict[str, tuple[str, ...]],
    outcome: str,
) -> None:
    whole = trajectory_from_docs(events, {"status": "unknown", "output": None})
    (result,) = grade_run(expect_from_doc(expect), whole)
    assert result.outcome in ("passed", "failed"), "without a cut every check is decided"
    if outcome != "not_reached":
        assert result.outcome == outcome
