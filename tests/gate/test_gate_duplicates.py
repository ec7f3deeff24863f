"""A results document that lists a case twice is refused by the gate, whichever way it is read."""

from __future__ import annotations

import json
from pathlib import Path

from tests.gate.gate_repo import BROKEN_PRICING, REFUND, ShopRepo


def _broken_results(shop: ShopRepo) -> tuple[Path, Path]:
    """The base run's results (main) and the head run's (refunds broken), as CI writes them."""
    base = shop.scratch / "base.json"
    assert shop.corpus("replay", "--results", str(base)).code == 0
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", BROKEN_PRICING)
    shop.commit("refunds in display units")
    head = shop.scratch / "head.json"
    assert shop.corpus("replay", "--results", str(head)).code == 1
    return base, head


def _listed_twice(results: Path, passing_from: Path) -> Path:
    """`results` with the failed refund case, then the same case as it passed elsewhere."""
    doc = json.loads(results.read_text(encoding="utf-8"))
    passed = next(
        c for c in json.loads(passing_from.read_text("utf-8"))["cases"] if c["case"] == REFUND
    )
    doc["cases"].append(passed)
    doc["summary"]["total"] += 1
    doc["summary"]["passed"] += 1
    forged = results.with_name("twice.json")
    forged.write_text(json.dumps(doc), encoding="utf-8")
    return forged


def _refused(ran_code: int, err: str, forged: Path) -> None:
    assert ran_code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert str(forged) in err and f"'{REFUND}' more than once" in err


def test_gate_files_refuse_a_head_document_listing_a_case_twice(shop: ShopRepo) -> None:
    base, head = _broken_results(shop)
    assert shop.corpus("gate", str(base), str(head)).code == 1  # the regression, read once
    forged = _listed_twice(head, base)
    ran = shop.corpus("gate", str(base), str(forged))
    _refused(ran.code, ran.err, forged)
    ran = shop.corpus("gate", str(forged), str(head))  # the base document is read the same way
    _refused(ran.code, ran.err, forged)


def test_gate_head_results_refuses_a_document_listing_a_case_twice(shop: ShopRepo) -> None:
    base, head = _broken_results(shop)
    forged = _listed_twice(head, base)
    ran = shop.corpus("gate", "--base", "main", "--head-results", str(forged))
    _refused(ran.code, ran.err, forged)
    assert "gate: PASSED" not in ran.out
