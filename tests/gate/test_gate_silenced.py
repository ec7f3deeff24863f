"""A change that breaks a case and, in the same change, puts it out of counting (`tier:
archive`, `status: retired` or `known_unknown`) is marked in every report of the gate."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.gate.gate_repo import BROKEN_PRICING, LOOKUP, REFUND, ShopRepo

SILENCINGS = [("tier", "archive"), ("status", "retired"), ("status", "known_unknown")]


def _break_and_silence(shop: ShopRepo, field: str, value: str) -> None:
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", BROKEN_PRICING)
    path = shop.root / f"evals/cases/{REFUND}/expected.yaml"
    expected = yaml.safe_load(path.read_text(encoding="utf-8"))
    expected[field] = value
    path.write_text(yaml.safe_dump(expected, sort_keys=False), encoding="utf-8")
    shop.commit(f"refunds in display units; the refund case is {value} now")


@pytest.mark.parametrize(("field", "value"), SILENCINGS, ids=[v for _, v in SILENCINGS])
def test_gate_marks_a_regressing_case_the_change_stops_counting(
    shop: ShopRepo, field: str, value: str
) -> None:
    _break_and_silence(shop, field, value)
    flip = f"{field} {value} (was {'fast' if field == 'tier' else 'active'})"
    markdown = shop.scratch / "comment.md"
    ran = shop.corpus("gate", "--base", "main", "--all", "--markdown", str(markdown))
    assert ran.code == 0, ran.out + ran.err  # not counted: approved in review, as a waiver is
    row = next(line for line in ran.out.splitlines() if line.startswith(REFUND))
    assert f"silenced by this change: {flip}, base passed" in row
    assert f"case {REFUND} silenced by this change: {flip}" in ran.out
    assert "gate: PASSED: no regression (1 case silenced by this change)" in ran.out
    comment = markdown.read_text(encoding="utf-8")
    assert "### Cases silenced by this change" in comment
    assert f"- `{REFUND}` — **silenced by this change: {flip}, base passed**" in comment
    doc = json.loads(shop.corpus("gate", "--base", "main", "--all", "--format", "json").out)
    assert doc["silenced"] == [REFUND]
    rows = {r["case"]: r for r in doc["cases"]}
    assert rows[REFUND]["kind"] == "not_counted"
    base_value = "fast" if field == "tier" else "active"
    assert rows[REFUND]["silenced_by_this_change"] == [
        {"field": field, "base": base_value, "head": value}
    ]
    assert rows[LOOKUP]["silenced_by_this_change"] == []


def test_gate_does_not_mark_a_case_already_out_of_counting_on_the_base(shop: ShopRepo) -> None:
    path = shop.root / f"evals/cases/{REFUND}/expected.yaml"
    expected = yaml.safe_load(path.read_text(encoding="utf-8"))
    expected["tier"] = "archive"
    path.write_text(yaml.safe_dump(expected, sort_keys=False), encoding="utf-8")
    shop.commit("the refund case is archived on main")
    shop.git("checkout", "-q", "-b", "change")
    expected["status"] = "retired"
    path.write_text(yaml.safe_dump(expected, sort_keys=False), encoding="utf-8")
    shop.commit("and retired")
    ran = shop.corpus("gate", "--base", "main", "--all", "--format", "json")
    assert ran.code == 0, ran.err
    doc = json.loads(ran.out)
    assert doc["silenced"] == []
