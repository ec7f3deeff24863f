"""`corpus gate --base REV` in a real repository: verdicts, waivers, an untouched checkout."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

from tests.gate.gate_repo import BROKEN_PRICING, LOOKUP, PRICING, REFUND, ShopRepo, days


def _rows(doc: dict) -> dict[str, dict]:
    return {row["case"]: row for row in doc["cases"]}


def _break_refunds(shop: ShopRepo) -> None:
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", BROKEN_PRICING)
    shop.commit("refunds in display units")


def test_gate_blocks_the_case_a_change_breaks_and_names_its_divergence(shop: ShopRepo) -> None:
    _break_refunds(shop)
    before = shop.state()
    ran = shop.corpus("gate", "--base", "main")
    assert ran.code == 1, ran.out + ran.err
    assert "gate: BLOCKED (1 regression)" in ran.out
    line = next(line for line in ran.out.splitlines() if line.startswith(REFUND))
    assert "regression *" in line and "ToolArguments at step 2" in line
    # the divergence the recording holds: the model asked for 1990 cents, the agent sent 19
    assert "$.arguments.amount: recorded 1990, replay 19" in ran.out
    assert shop.state() == before


def test_gate_does_not_call_the_unbroken_case_a_regression(shop: ShopRepo) -> None:
    _break_refunds(shop)
    ran = shop.corpus("gate", "--base", "main", "--all", "--format", "json")
    assert ran.code == 1, ran.err
    rows = _rows(json.loads(ran.out))
    assert rows[LOOKUP]["kind"] == "passing" and rows[LOOKUP]["blocks"] is False
    assert rows[REFUND]["kind"] == "regression" and rows[REFUND]["blocks"] is True
    diff = rows[REFUND]["divergence"]["diff"]
    assert diff == [{"path": "$.arguments.amount", "expected": 1990, "actual": 19}]


def test_gate_waiver_added_by_the_change_passes_it_and_is_shown_as_added(
    shop: ShopRepo,
) -> None:
    _break_refunds(shop)
    shop.waiver("W-1", REFUND, days(30))
    shop.commit("waive the refund case while the fix lands")
    ran = shop.corpus("gate", "--base", "main", "--format", "json")
    assert ran.code == 0, ran.out + ran.err
    doc = json.loads(ran.out)
    assert doc["verdict"] == "passed"
    row = _rows(doc)[REFUND]
    assert row["kind"] == "regression" and row["head"] == "waived" and row["waived_by"] == ["W-1"]
    [used] = doc["waivers"]["used"]
    assert used["id"] == "W-1" and used["changed_by_this_change"] == "added"
    assert used["owner"] == "shop-team" and used["expires"] == days(30).isoformat()
    text = shop.corpus("gate", "--base", "main").out
    assert "waived by W-1 (added by this change)" in text
    assert (
        "waiver W-1 (owner shop-team" in text and "added by this change: case refund-order" in text
    )


def test_gate_expired_waiver_waives_nothing(shop: ShopRepo) -> None:
    _break_refunds(shop)
    shop.waiver("W-1", REFUND, days(30))
    shop.commit("waive")
    assert shop.corpus("gate", "--base", "main").code == 0
    shop.waiver("W-1", REFUND, days(-1))
    shop.commit("the waiver ran out")
    ran = shop.corpus("gate", "--base", "main")
    assert ran.code == 1, ran.out
    assert "gate: BLOCKED (1 regression)" in ran.out
    assert "waiver W-1 (owner shop-team" in ran.out and "has expired: it waives nothing" in ran.out


def test_gate_waiver_for_other_checks_does_not_waive(shop: ShopRepo) -> None:
    _break_refunds(shop)
    shop.waiver("W-1", REFUND, days(30), checks="[output.contains]")
    shop.commit("a waiver that names another check")
    ran = shop.corpus("gate", "--base", "main", "--format", "json")
    assert ran.code == 1
    assert _rows(json.loads(ran.out))[REFUND]["blocks"] is True


def test_gate_reports_a_fixed_case_newly_passing_and_its_waiver_unused(shop: ShopRepo) -> None:
    shop.write("shop/pricing.py", BROKEN_PRICING)
    shop.waiver("W-1", REFUND, days(30))
    shop.commit("main refunds in display units, waived")
    shop.git("checkout", "-q", "-b", "fix")
    shop.write("shop/pricing.py", PRICING)
    shop.commit("refunds in cents again")
    ran = shop.corpus("gate", "--base", "main", "--format", "json")
    assert ran.code == 0, ran.out + ran.err
    doc = json.loads(ran.out)
    row = _rows(doc)[REFUND]
    assert (row["base"], row["head"], row["kind"]) == ("failed", "passed", "newly_passing")
    assert [w["id"] for w in doc["waivers"]["unused"]] == ["W-1"]
    markdown = shop.scratch / "comment.md"
    shop.corpus("gate", "--base", "main", "--markdown", str(markdown))
    text = markdown.read_text(encoding="utf-8")
    assert "### Newly passing" in text and "`W-1` is now unused" in text


def test_gate_still_failing_is_reported_not_blamed(shop: ShopRepo) -> None:
    shop.write("shop/pricing.py", BROKEN_PRICING)
    shop.commit("main refunds in display units")
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/agent.py", (shop.root / "shop/agent.py").read_text() + "\n# a comment\n")
    shop.commit("an unrelated edit")
    ran = shop.corpus("gate", "--base", "main", "--format", "json")
    assert ran.code == 0, ran.out
    rows = _rows(json.loads(ran.out))
    assert rows[REFUND]["kind"] == "still_failing" and rows[REFUND]["blocks"] is False
    assert rows[LOOKUP]["kind"] == "passing"


def test_gate_head_revision_is_replayed_from_its_own_checkout(shop: ShopRepo) -> None:
    _break_refunds(shop)
    broken = shop.git("rev-parse", "HEAD").strip()
    shop.git("checkout", "-q", "main")
    before = shop.state()
    ran = shop.corpus("gate", "--base", "main", "--head", broken, "--format", "json")
    assert ran.code == 1, ran.err
    assert _rows(json.loads(ran.out))[REFUND]["kind"] == "regression"
    assert shop.state() == before


def test_gate_leaves_staged_and_unstaged_work_alone(shop: ShopRepo) -> None:
    _break_refunds(shop)
    shop.write("notes.txt", "staged\n")
    shop.git("add", "notes.txt")
    shop.write("notes.txt", "staged, then edited\n")
    shop.write("scratch.txt", "untracked\n")
    before = shop.state()
    ran = shop.corpus("gate", "--base", "main")
    assert ran.code == 1
    assert shop.state() == before
    assert (shop.root / "notes.txt").read_text() == "staged, then edited\n"


def test_gate_reports_in_junit_markdown_and_the_step_summary(shop: ShopRepo) -> None:
    _break_refunds(shop)
    summary = shop.scratch / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    junit, markdown = shop.scratch / "gate.xml", shop.scratch / "gate.md"
    env = {**shop.env, "GITHUB_STEP_SUMMARY": str(summary)}
    ran = shop.corpus(
        "gate",
        "--base",
        "main",
        "--all",
        "--junit",
        str(junit),
        "--markdown",
        str(markdown),
        env=env,
    )
    assert ran.code == 1
    text = markdown.read_text(encoding="utf-8")
    assert text.splitlines()[0] == ":x: gate: BLOCKED (1 regression)".join(["## ", ""])
    assert text.index("### Blocking") < text.index("### Pass rate per tier")
    assert "ToolArguments at step 2" in text and "`refund-order`" in text
    assert summary.read_text(encoding="utf-8") == "# earlier step\n" + text
    suite = ElementTree.parse(junit).getroot()
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases[REFUND].find("failure") is not None
    assert cases[LOOKUP].find("failure") is None and cases[LOOKUP].find("skipped") is None
