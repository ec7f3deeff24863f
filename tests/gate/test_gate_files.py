"""`corpus gate BASE.json HEAD.json`: the same verdict from two results files as from --base."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.gate.gate_repo import BROKEN_PRICING, LOOKUP, REFUND, ShopRepo, days


def _results(shop: ShopRepo, rev: str, name: str) -> Path:
    """The results of replaying every case at `rev`, as CI writes them on each side."""
    shop.git("checkout", "-q", rev)
    target = shop.scratch / name
    shop.corpus("replay", "--results", str(target))
    return target


def _kinds(doc: dict) -> dict[str, tuple[str, bool]]:
    return {row["case"]: (row["kind"], row["blocks"]) for row in doc["cases"]}


@pytest.mark.parametrize("waived", [False, True], ids=["regression", "waived"])
def test_gate_from_results_files_agrees_with_gate_base(shop: ShopRepo, waived: bool) -> None:
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", BROKEN_PRICING)
    if waived:
        shop.waiver("W-1", REFUND, days(30))
    shop.commit("refunds in display units")
    replayed = shop.corpus("gate", "--base", "main", "--all", "--format", "json")
    base, head = _results(shop, "main", "base.json"), _results(shop, "change", "head.json")
    from_files = shop.corpus("gate", str(base), str(head), "--format", "json")
    assert from_files.code == replayed.code == (0 if waived else 1), from_files.err
    one, other = json.loads(replayed.out), json.loads(from_files.out)
    assert one["verdict"] == other["verdict"]
    assert _kinds(one) == _kinds(other)
    assert one["waivers"]["used"] == other["waivers"]["used"]
    if waived:
        assert other["waivers"]["used"][0]["changed_by_this_change"] == "added"


def test_gate_new_failing_case_blocks_unless_known_unknown_and_removed_is_listed(
    shop: ShopRepo,
) -> None:
    shop.git("checkout", "-q", "-b", "change")
    new = shop.root / "evals/cases/refund-twice"
    shutil.copytree(shop.root / f"evals/cases/{REFUND}", new)
    for name in ("trace.yaml", "expected.yaml"):
        text = (new / name).read_text(encoding="utf-8").replace(REFUND, "refund-twice")
        (new / name).write_text(text, encoding="utf-8")
    expected = yaml.safe_load((new / "expected.yaml").read_text(encoding="utf-8"))
    expected["expect"]["tools"]["max_calls"] = {"create_refund": 0}  # the agent calls it once
    (new / "expected.yaml").write_text(yaml.safe_dump(expected), encoding="utf-8")
    shutil.rmtree(shop.root / f"evals/cases/{LOOKUP}")
    shop.commit("a new case that fails, a case removed")
    ran = shop.corpus("gate", "--base", "main", "--format", "json")
    doc = json.loads(ran.out)
    assert ran.code == 1, ran.err
    assert _kinds(doc)["refund-twice"] == ("new_failure", True)
    assert doc["removed"] == [LOOKUP]
    expected["status"] = "known_unknown"
    (new / "expected.yaml").write_text(yaml.safe_dump(expected), encoding="utf-8")
    shop.commit("keep it as a known unknown")
    ran = shop.corpus("gate", "--base", "main", "--format", "json")
    assert ran.code == 0, ran.out
    assert _kinds(json.loads(ran.out))["refund-twice"] == ("not_counted", False)


def test_gate_usage_and_input_errors_are_one_line_exit_2(shop: ShopRepo) -> None:
    for args, said in (
        ((), "give --base REV"),
        (("only.json",), "give two results files"),
        (("a.json", "b.json", "--base", "main"), "not both"),
        (("--base", "no-such-branch"), "unknown revision 'no-such-branch'"),
    ):
        ran = shop.corpus("gate", *args)
        assert ran.code == 2, args
        assert said in ran.err and len(ran.err.strip().splitlines()) == 1, ran.err
    bad = shop.scratch / "bad.json"
    bad.write_text(json.dumps({"cases": []}), encoding="utf-8")
    ran = shop.corpus("gate", str(bad), str(bad))
    assert ran.code == 2 and "bad.json" in ran.err and "not a results document" in ran.err
    ran = shop.corpus("gate", str(shop.scratch), str(bad))
    assert ran.code == 2 and len(ran.err.strip().splitlines()) == 1


def test_gate_base_with_head_results_replays_only_the_base(shop: ShopRepo) -> None:
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", BROKEN_PRICING)
    shop.commit("refunds in display units")
    ids = shop.corpus("affected", "--base", "main").out.split()
    assert ids == [REFUND]
    head = shop.scratch / "head.json"
    assert shop.corpus("replay", *ids, "--results", str(head)).code == 1
    ran = shop.corpus("gate", "--base", "main", "--head-results", str(head), "--format", "json")
    assert ran.code == 1, ran.err
    assert _kinds(json.loads(ran.out)) == {REFUND: ("regression", True)}
    assert "head: the working tree" not in ran.err, "the head side was not replayed again"
    partial = shop.scratch / "partial.json"
    doc = json.loads(head.read_text(encoding="utf-8"))
    doc["cases"], doc["summary"]["total"], doc["summary"]["failed"] = [], 0, 0
    partial.write_text(json.dumps(doc), encoding="utf-8")
    ran = shop.corpus("gate", "--base", "main", "--head-results", str(partial))
    assert ran.code == 2 and f"has no result for {REFUND}" in ran.err
