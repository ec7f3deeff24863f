"""A warm `corpus gate` reads the selected cases' files through the parsed-document cache: no
YAML parse for an unchanged case on either side, the same report as the cold run."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from corpus_tool.cli import main
from tests.gate.gate_repo import BROKEN_PRICING, LOOKUP, REFUND, ShopRepo
from tests.yaml_parses import counting


def gate(shop: ShopRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["-C", str(shop.root / "evals"), "gate", "--base", "main", *args])
    return code, capsys.readouterr().out


def _broken_pricing(shop: ShopRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A branch whose change breaks the pricing (a regression of the refund case), run from
    the shop's root with its environment."""
    monkeypatch.chdir(shop.root)
    for key in ("CORPUS_REDACTION_KEY", "GATE_MARKER"):
        monkeypatch.setenv(key, shop.env[key])
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", BROKEN_PRICING)
    shop.commit("refunds in display units")


def test_a_warm_gate_parses_no_unchanged_case_file_and_says_what_a_cold_one_says(
    shop: ShopRepo,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    cache_dir: Path,
) -> None:
    _broken_pricing(shop, monkeypatch)
    parses = counting(monkeypatch, shop.root / "evals" / "cases")
    cold = gate(shop, capsys, "--all", "--format", "json")
    assert cold[0] == 1 and '"regression"' in cold[1], cold
    # cold: each file parsed once for both sides (same bytes), each trace scanned for selection
    once = Counter({f"{c}/{k}": 1 for c in (REFUND, LOOKUP) for k in ("trace", "expected")})
    assert parses.counts() == once + Counter({f"{c}/trace": 1 for c in (REFUND, LOOKUP)})
    for _ in range(2):
        parses.clear()
        assert gate(shop, capsys, "--all", "--format", "json") == cold
        assert parses.counts() == Counter(), parses.counts()
    # a case edited by the change: its new expected.yaml is parsed (once), nothing else
    path = shop.root / "evals" / "cases" / LOOKUP / "expected.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    shop.commit("a comment in a case")
    parses.clear()
    assert gate(shop, capsys, "--all", "--format", "json")[0] == 1
    assert parses.counts() == Counter({f"{LOOKUP}/expected": 1}), parses.counts()
    # an entry of the cache that is broken is parsed again, never trusted
    for entry in (cache_dir / "documents").glob("*/*"):
        entry.write_bytes(entry.read_bytes()[:-3])
    parses.clear()
    assert gate(shop, capsys, "--all", "--format", "json")[0] == 1
    assert sum(parses.counts().values()) == 4, parses.counts()


def test_the_gate_keeps_its_document_cache_in_the_git_dir_it_watches_without_tripping_the_watch(
    shop: ShopRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no CORPUS_CACHE_DIR the cache is in the repository's git dir, which the gate
    watches for what the replayed agents change: its own entries are written after the watch
    (the gate is not refused for them), and the next gate reads them (no parse)."""
    monkeypatch.delenv("CORPUS_CACHE_DIR")
    _broken_pricing(shop, monkeypatch)
    entries = shop.root / ".git" / "corpus-tool" / "documents"
    cold = gate(shop, capsys, "--all", "--format", "json")
    assert cold[0] == 1 and '"regression"' in cold[1], cold
    assert len(list(entries.glob("*/*"))) == 4  # trace and expected of both cases
    parses = counting(monkeypatch, shop.root / "evals" / "cases")
    assert gate(shop, capsys, "--all", "--format", "json") == cold
    assert parses.counts() == Counter(), parses.counts()
