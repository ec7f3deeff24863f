"""Every check name, on passing and failing example trajectories, with the message asserted."""

from __future__ import annotations

from typing import Any

import pytest

from corpus_tool.grade import CHECK_NAMES, grade, lexical_scorer
from corpus_tool.io import schema
from tests.grade.grade_trajectories import (
    call,
    effect,
    end,
    error,
    expected_document,
    model,
    retry,
    trace_document,
)

REFUND = [
    model(1),
    call(2, "get_order", {"order_id": "O-1"}, egress="orders.internal"),
    call(3, "create_refund", {"order_id": "O-1", "amount": 5900}, egress="payments.internal"),
    effect(4, "refund_created"),
]


def row(
    case_id: str,
    expect: dict[str, Any],
    events: list[dict[str, Any]],
    name: str,
    ok: bool,
    *fragments: str,
    terminal: dict[str, Any] | None = None,
) -> Any:
    """One example: grading `events` against `expect` gives `name` passing or not, saying..."""
    return pytest.param(expect, events, terminal or end(), name, ok, fragments, id=case_id)


# One row per example; kept as a table (not ruff-formatted) so it reads as one.
# fmt: off
CASES = [
    # errors.forbidden / errors.required: tool errors and error events, by type
    row("errors-forbidden-pass", {"errors": {"forbidden": ["ZeroDivisionError"]}}, REFUND,
        "errors.forbidden", True, "none of ZeroDivisionError occurred", "raised no errors"),
    row("errors-forbidden-error-event", {"errors": {"forbidden": ["ZeroDivisionError"]}},
        [*REFUND, error(5, "ZeroDivisionError")], "errors.forbidden", False,
        "forbidden error ZeroDivisionError at seq 5 (error event, node calculator)",
        "division by zero"),
    row("errors-forbidden-tool-error", {"errors": {"forbidden": ["TimeoutError"]}},
        [call(1, "check_refund", error="TimeoutError")], "errors.forbidden", False,
        "TimeoutError at seq 1 (tool check_refund)"),
    row("errors-required-pass", {"errors": {"required": ["TimeoutError"]}},
        [call(1, "check_refund", error="TimeoutError"), call(2, "check_refund")],
        "errors.required", True, "TimeoutError at seq 1"),
    row("errors-required-fail", {"errors": {"required": ["OutOfStock"]}},
        [call(1, "search", error="TimeoutError")], "errors.required", False,
        "required error OutOfStock never occurred", "errors seen: TimeoutError (seq 1)"),
    # tools.required / forbidden / allowed
    row("tools-required-pass", {"tools": {"required": ["create_refund"]}}, REFUND,
        "tools.required", True, "create_refund (seq 3)"),
    row("tools-required-fail", {"tools": {"required": ["notify_operator"]}}, REFUND,
        "tools.required", False, "required tool notify_operator was never called",
        "calls were: get_order (seq 2), create_refund (seq 3)"),
    row("tools-forbidden-pass", {"tools": {"forbidden": ["place_order"]}}, REFUND,
        "tools.forbidden", True, "none of place_order was called"),
    row("tools-forbidden-fail", {"tools": {"forbidden": ["create_refund"]}}, REFUND,
        "tools.forbidden", False, "forbidden tool create_refund was called at seq 3"),
    row("tools-allowed-pass", {"tools": {"allowed": ["get_order", "create_refund"]}}, REFUND,
        "tools.allowed", True, "all 2 calls use allowed tools"),
    row("tools-allowed-fail", {"tools": {"allowed": ["get_order"]}}, REFUND,
        "tools.allowed", False, "tool create_refund at seq 3 is not in the allowed set",
        "allowed: get_order"),
    # tools.order: each list a subsequence of the calls, gaps allowed
    row("tools-order-pass-with-gap", {"tools": {"order": [["get_order", "notify"]]}},
        [call(1, "get_order"), call(2, "create_refund"), call(3, "notify")],
        "tools.order", True, "calls follow get_order -> notify"),
    row("tools-order-fail-reversed", {"tools": {"order": [["create_refund", "get_order"]]}},
        REFUND, "tools.order", False,
        "order create_refund -> get_order broken: matched create_refund (seq 3), "
        "then no get_order after seq 3 (called only at seq 2)"),
    row("tools-order-fail-second-list",
        {"tools": {"order": [["get_order", "create_refund"], ["get_order", "notify"]]}},
        REFUND, "tools.order", False, "order get_order -> notify broken",
        "no notify after seq 2 (never called)"),
    # tools.args: subset (default) and exact; closest call and differing argument named
    row("tools-args-subset-pass",
        {"tools": {"args": [{"tool": "create_refund", "match": {"amount": 5900}}]}}, REFUND,
        "tools.args", True, 'create_refund at seq 3 (subset {"amount": 5900})'),
    row("tools-args-subset-fail",
        {"tools": {"args": [{"tool": "create_refund", "match": {"amount": 59}}]}}, REFUND,
        "tools.args", False, "no call of create_refund matches subset",
        "closest is seq 3: amount: expected 59, got 5900"),
    row("tools-args-closest-of-several",
        {"tools": {"args": [{"tool": "refund", "match": {"order": "O-2", "amount": 5}}]}},
        [call(1, "refund", {"order": "O-9", "amount": 7}),
         call(2, "refund", {"order": "O-2", "amount": 500})],
        "tools.args", False, "closest is seq 2: amount: expected 5, got 500"),
    row("tools-args-any-call-matches",
        {"tools": {"args": [{"tool": "refund", "match": {"amount": 5}}]}},
        [call(1, "refund", {"amount": 7}), call(2, "refund", {"amount": 5})],
        "tools.args", True, "refund at seq 2"),
    row("tools-args-exact-fail-extra",
        {"tools": {"args": [{"tool": "get_order", "match": {}, "mode": "exact"}]}}, REFUND,
        "tools.args", False, "matches exact {}", 'order_id: unexpected argument "O-1"'),
    row("tools-args-exact-pass",
        {"tools": {"args": [{"tool": "get_order", "match": {"order_id": "O-1"},
                             "mode": "exact"}]}},
        REFUND, "tools.args", True, "get_order at seq 2 (exact"),
    row("tools-args-missing-argument",
        {"tools": {"args": [{"tool": "get_order", "match": {"currency": "CNY"}}]}}, REFUND,
        "tools.args", False, 'currency: missing, expected "CNY"'),
    row("tools-args-deep-path",
        {"tools": {"args": [{"tool": "ship", "match": {"to": {"city": "Xi'an", "zip": "7"}}}]}},
        [call(1, "ship", {"to": {"city": "Xian", "zip": "7"}})], "tools.args", False,
        "to.city: expected \"Xi'an\", got \"Xian\""),
    row("tools-args-true-is-not-1",
        {"tools": {"args": [{"tool": "refund", "match": {"full": True}}]}},
        [call(1, "refund", {"full": 1})], "tools.args", False, "full: expected true, got 1"),
    row("tools-args-never-called",
        {"tools": {"args": [{"tool": "notify", "match": {"level": "high"}}]}}, REFUND,
        "tools.args", False, "notify was never called"),
    # tools.max_calls
    row("tools-max-calls-pass", {"tools": {"max_calls": {"create_refund": 1}}}, REFUND,
        "tools.max_calls", True, "create_refund: 1 of at most 1"),
    row("tools-max-calls-fail", {"tools": {"max_calls": {"create_refund": 1}}},
        [*REFUND, call(5, "create_refund", {"order_id": "O-1", "amount": 5900})],
        "tools.max_calls", False, "create_refund was called 2 times (seq 3, 5), at most 1"),
    # retries.max: retry events plus repeats right after an error, counted once
    row("retries-max-pass", {"retries": {"max": 1}},
        [call(1, "check_refund", error="TimeoutError"), retry(2, of=1), call(3, "check_refund")],
        "retries.max", True, "1 retry, at most 1 allowed", "retry event at seq 2 (of seq 1"),
    row("retries-max-fail-implied", {"retries": {"max": 0}},
        [call(1, "pay", {"a": 1}, error="ConnectionResetError"), model(2),
         call(3, "pay", {"a": 1})],
        "retries.max", False, "1 retry, at most 0 allowed",
        "pay repeated at seq 3 after ConnectionResetError at seq 1"),
    row("retries-max-fail-events", {"retries": {"max": 1}},
        [call(1, "t", error="E"), retry(2, of=1), call(3, "t", error="E"),
         retry(4, of=1, attempt=3), call(5, "t")],
        "retries.max", False, "2 retries, at most 1 allowed",
        "retry event at seq 4 (of seq 1, attempt 3)"),
    row("retries-repeat-without-error-is-not-a-retry", {"retries": {"max": 0}},
        [call(1, "get_order", {"id": 1}), call(2, "get_order", {"id": 1})],
        "retries.max", True, "0 retries"),
    # egress.allowed: exact host or *.suffix
    row("egress-pass-wildcard", {"egress": {"allowed": ["*.internal"]}}, REFUND,
        "egress.allowed", True,
        "2 calls reached allowed hosts: orders.internal, payments.internal"),
    row("egress-fail", {"egress": {"allowed": ["orders.internal"]}}, REFUND,
        "egress.allowed", False, "create_refund at seq 3 reached payments.internal, not allowed"),
    row("egress-wildcard-is-not-the-apex", {"egress": {"allowed": ["*.example.com"]}},
        [call(1, "fetch", egress="example.com")], "egress.allowed", False,
        "reached example.com, not allowed"),
    row("egress-url-and-port", {"egress": {"allowed": ["api.example.com"]}},
        [call(1, "fetch", egress="https://API.example.com:443/v1")], "egress.allowed", True,
        "api.example.com"),
    row("egress-lookalike-suffix", {"egress": {"allowed": ["*.example.com"]}},
        [call(1, "fetch", egress="evilexample.com")], "egress.allowed", False,
        "evilexample.com, not allowed"),
    # side_effects.count: exact count per kind
    row("side-effects-pass", {"side_effects": [{"type": "refund_created", "count": 1}]}, REFUND,
        "side_effects.count", True, "refund_created: 1 effect (seq 4)"),
    row("side-effects-fail-double", {"side_effects": [{"type": "refund_created", "count": 1}]},
        [*REFUND, effect(5, "refund_created")], "side_effects.count", False,
        "refund_created: 2 effects (seq 4, 5), expected exactly 1"),
    row("side-effects-fail-none", {"side_effects": [{"type": "mail_sent", "count": 1}]}, REFUND,
        "side_effects.count", False, "mail_sent: 0 effects, expected exactly 1"),
    # idempotency.reuse_key
    row("idempotency-pass-same-key", {"idempotency": {"tools": ["pay"]}},
        [call(1, "pay", {"a": 1}, error="ConnectionResetError", key="k1"),
         call(2, "pay", {"a": 1}, key="k1")],
        "idempotency.reuse_key", True, 'pay (seq 2) reuses key "k1" of seq 1'),
    row("idempotency-pass-key-as-argument", {"idempotency": {"tools": ["pay"]}},
        [call(1, "pay", {"a": 1, "idempotency_key": "k1"}),
         call(2, "pay", {"a": 1, "idempotency_key": "k1"})],
        "idempotency.reuse_key", True, 'reuses key "k1"'),
    row("idempotency-fail-new-key", {"idempotency": {"tools": ["pay"]}},
        [call(1, "pay", {"a": 1, "idempotency_key": "k1"}),
         call(2, "pay", {"a": 1, "idempotency_key": "k2"})],
        "idempotency.reuse_key", False,
        'pay (seq 2) repeats seq 1 with the same arguments but a new idempotency key "k2", '
        'expected "k1"'),
    row("idempotency-fail-no-key", {"idempotency": {"tools": ["pay"]}},
        [call(1, "pay", {"a": 1}), call(2, "pay", {"a": 1})], "idempotency.reuse_key", False,
        "neither carries an idempotency key"),
    row("idempotency-float-is-the-same-amount", {"idempotency": {"tools": ["pay"]}},
        [call(1, "pay", {"a": 1}, key="k1"), call(2, "pay", {"a": 1.0}, key="k2")],
        "idempotency.reuse_key", False, 'new idempotency key "k2"'),
    row("idempotency-other-arguments-are-no-repeat", {"idempotency": {"tools": ["pay"]}},
        [call(1, "pay", {"a": 1}), call(2, "pay", {"a": 2})], "idempotency.reuse_key", True,
        "no call of pay was repeated with the same arguments"),
    # terminal.status: exact
    row("terminal-pass", {"terminal": {"status": "submitted"}}, REFUND, "terminal.status", True,
        "terminal status is submitted", terminal=end("submitted")),
    row("terminal-submitted-is-not-succeeded", {"terminal": {"status": "succeeded"}}, REFUND,
        "terminal.status", False, "terminal status is submitted, expected succeeded",
        "accepted, not yet done", terminal=end("submitted")),
    # output.contains / not_contains / regex
    row("output-contains-pass", {"output": {"contains": ["R1"]}}, REFUND, "output.contains",
        True, 'output contains "R1"'),
    row("output-contains-fail", {"output": {"contains": ["已提交"]}}, REFUND, "output.contains",
        False, 'output lacks "已提交"', 'output was "Refund R1 submitted."'),
    row("output-contains-no-output", {"output": {"contains": ["R1"]}}, REFUND,
        "output.contains", False, "the run produced no output", terminal=end("failed", None)),
    row("output-not-contains-pass", {"output": {"not_contains": ["已到账"]}}, REFUND,
        "output.not_contains", True, 'none of "已到账"'),
    row("output-not-contains-fail", {"output": {"not_contains": ["submitted"]}}, REFUND,
        "output.not_contains", False, 'output contains "submitted" at offset 10'),
    row("output-regex-pass", {"output": {"regex": [r"R\d+"]}}, REFUND, "output.regex", True,
        'matches `R\\d+`'),
    row("output-regex-fail", {"output": {"regex": [r"R\d{3}"]}}, REFUND, "output.regex", False,
        'pattern `R\\d{3}` matches nowhere'),
    row("output-regex-invalid", {"output": {"regex": ["[x"]}}, REFUND, "output.regex", False,
        "is not a valid regular expression"),
    row("output-structured-output", {"output": {"contains": ['"refund_id": "R1"']}}, REFUND,
        "output.contains", True, "R1", terminal=end("succeeded", {"refund_id": "R1"})),
    # output.similar: the plugged scorer (the built-in lexical one named per case here)
    row("output-similar-pass",
        {"output": {"similar": {"reference": "Refund R1 was submitted.", "scorer": "lexical",
                                "min_score": 0.6}}},
        REFUND, "output.similar", True, "similarity 0.86 >= 0.60 (lexical)"),
    row("output-similar-fail",
        {"output": {"similar": {"reference": "Your money is back.", "scorer": "lexical"}}},
        REFUND, "output.similar", False, "similarity 0.00 < 0.80 (lexical)",
        'reference "Your money is back."'),
    row("output-similar-no-scorer", {"output": {"similar": {"reference": "Refund R1."}}}, REFUND,
        "output.similar", False, "no similarity scorer configured", "replay.scorer"),
]
# fmt: on


@pytest.mark.parametrize(("expect", "events", "terminal", "name", "ok", "fragments"), CASES)
def test_grade_check_verdict_and_message(
    expect: dict[str, Any],
    events: list[dict[str, Any]],
    terminal: dict[str, Any],
    name: str,
    ok: bool,
    fragments: tuple[str, ...],
) -> None:
    results = {r.name: r for r in grade(expect, events, terminal)}
    result = results[name]
    assert result.passed is ok, result.message
    for fragment in fragments:
        assert fragment in result.message


def test_grade_checks_every_name_passes_and_fails() -> None:
    seen = {(p.values[3], p.values[4]) for p in CASES}
    assert {(n, ok) for n in CHECK_NAMES for ok in (True, False)} <= seen


@pytest.mark.parametrize(("expect", "events", "terminal", "name", "ok", "fragments"), CASES)
def test_grade_examples_are_schema_valid(
    expect: dict[str, Any],
    events: list[dict[str, Any]],
    terminal: dict[str, Any],
    name: str,
    ok: bool,
    fragments: tuple[str, ...],
) -> None:
    assert schema.errors("expected", expected_document(expect)) == []
    assert schema.errors("trace", trace_document(events, terminal)) == []


def test_grade_lexical_scorer_plugged_by_caller() -> None:
    expect = {"output": {"similar": {"reference": "Refund R1 submitted", "min_score": 0.9}}}
    [result] = grade(expect, REFUND, end(), scorer=lexical_scorer)
    assert result.passed
    assert result.details["scorer"] == "lexical"
