"""A waiver that names some of a case's failed checks waives nothing: every report of the gate
lists each failed check with the waiver that covers it, names the one no waiver covers, and
never says "waived by" about the case it blocks."""

from __future__ import annotations

import json

from tests.gate.gate_repo import AGENT, REFUND, ShopRepo, days


def _fail_two_checks_waive_one(shop: ShopRepo) -> None:
    """The agent ends `failed` on the recorded path: `terminal.status` and `replay.divergence`
    (TerminalState) fail; the change adds a waiver for `terminal.status` only."""
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/agent.py", AGENT.replace('"status": "succeeded"', '"status": "failed"'))
    shop.waiver("W-0002", REFUND, days(30), checks="[terminal.status]")
    shop.commit("the run ends failed; waive its status only")


def test_gate_names_the_failed_check_no_waiver_covers_in_every_report(shop: ShopRepo) -> None:
    _fail_two_checks_waive_one(shop)
    markdown = shop.scratch / "comment.md"
    ran = shop.corpus("gate", "--base", "main", "--markdown", str(markdown))
    assert ran.code == 1, ran.out + ran.err
    row = next(line for line in ran.out.splitlines() if line.startswith(REFUND))
    assert "regression *" in row
    assert "not covered by a waiver: replay.divergence" in row
    assert "terminal.status covered by W-0002 (added by this change)" in row
    assert "    replay.divergence: not covered by a waiver" in ran.out
    assert "    terminal.status: covered by W-0002 (added by this change)" in ran.out
    assert "waived" not in ran.out  # nothing is waived: the case blocks

    comment = markdown.read_text(encoding="utf-8")
    blocking = comment.split("### Blocking", 1)[1].split("\n### ", 1)[0]
    assert f"- `{REFUND}` (fast)" in blocking
    assert "**not covered by a waiver: `replay.divergence`**" in blocking
    assert "`terminal.status` covered by `W-0002` (added by this change)" in blocking
    assert "waived" not in comment
    assert "### Regressions excused by a waiver" not in comment

    doc = json.loads(shop.corpus("gate", "--base", "main", "--format", "json").out)
    case = next(r for r in doc["cases"] if r["case"] == REFUND)
    assert case["blocks"] is True and case["head"] == "failed"
    assert sorted(case["failed_checks"]) == ["replay.divergence", "terminal.status"]
    assert case["covered_by"] == {"replay.divergence": [], "terminal.status": ["W-0002"]}
    assert case["not_covered"] == ["replay.divergence"]
    assert case["waived_by"] == []
    assert doc["waivers"]["used"] == []


def test_gate_case_its_waivers_cover_says_which_waiver_covers_each_check(shop: ShopRepo) -> None:
    _fail_two_checks_waive_one(shop)
    shop.waiver("W-0003", REFUND, days(30), checks="[replay.divergence]")
    shop.commit("and its divergence")
    doc = json.loads(shop.corpus("gate", "--base", "main", "--format", "json").out)
    case = next(r for r in doc["cases"] if r["case"] == REFUND)
    assert case["head"] == "waived" and case["blocks"] is False
    assert case["covered_by"] == {"replay.divergence": ["W-0003"], "terminal.status": ["W-0002"]}
    assert case["not_covered"] == [] and case["waived_by"] == ["W-0002", "W-0003"]
    ran = shop.corpus("gate", "--base", "main")
    row = next(line for line in ran.out.splitlines() if line.startswith(REFUND))
    assert (
        "waived by W-0002 (added by this change) for terminal.status, "
        "W-0003 (added by this change) for replay.divergence" in row
    )
