"""The recorded-mode gate under issue 24: a case whose recording the change edited is not
comparable (never a regression), and --repeat N keeps its meaning (a determinism check)."""

from __future__ import annotations

import json

from tests.gate.gate_repo import BROKEN_PRICING, LOOKUP, REFUND, ShopRepo, gate_json


def test_a_case_whose_recording_the_change_edited_is_not_comparable(shop: ShopRepo) -> None:
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", BROKEN_PRICING)
    trace = shop.root / "evals" / "cases" / REFUND / "trace.yaml"
    shop.write(
        f"evals/cases/{REFUND}/trace.yaml", trace.read_text(encoding="utf-8") + "# re-recorded\n"
    )
    shop.commit("refunds in display units, and the case re-recorded")
    ran = shop.corpus("gate", "--base", "main", "--format", "json")
    assert ran.code == 0, ran.out + ran.err
    rows = {row["case"]: row for row in gate_json(ran)["cases"]}
    assert rows[REFUND]["kind"] == "not_comparable" and rows[REFUND]["blocks"] is False
    assert rows[REFUND]["head"] == "failed"  # it fails, but against another recording
    assert "recording changed between base and head" in rows[REFUND]["note"]
    text = shop.corpus("gate", "--base", "main")
    line = next(x for x in text.out.splitlines() if x.startswith(REFUND))
    assert "not comparable" in line and text.code == 0


def test_recorded_repeat_is_still_a_determinism_check(shop: ShopRepo) -> None:
    ran = shop.corpus("gate", "--base", "main", "--all", "--repeat", "3", "--format", "json")
    assert ran.code == 0, ran.out + ran.err
    rows = {row["case"]: row for row in json.loads(ran.out)["cases"]}
    assert {rows[REFUND]["kind"], rows[LOOKUP]["kind"]} == {"passing"}
    assert "live" not in rows[REFUND]  # no exact test: the recorded rule decides
    refused = shop.corpus("gate", "--base", "main", "--repeat", "auto")
    assert refused.code == 2 and "--repeat auto runs live attempts in rounds" in refused.err
