"""The report opened in headless Chromium as a reader opens it: no console error, no network
request, the filter and the per-case timeline work, the divergent step is on screen, and
untrusted markup never runs. A screenshot of each view is written under the test's tmp dir."""

from __future__ import annotations

import json
from pathlib import Path

from corpus_tool.testing.scripted_model import ModelScript
from tests.conftest import Cli
from tests.gate.gate_repo import BROKEN_PRICING, REFUND, ShopRepo
from tests.gate.live_repo import CASE as LIVE_CASE
from tests.gate.live_repo import live_repo, rates
from tests.replay.live_corpus import EDITED, live_corpus, provider
from tests.report.conftest import HOSTILE, Browser, hostile_results

__all__ = ["provider"]  # the fixture, used by name


def _visible_ids(page: object) -> list[str]:
    rows = page.locator("#cases tbody tr:not([hidden])")  # type: ignore[attr-defined]
    return [rows.nth(i).get_attribute("data-case") for i in range(rows.count())]


def test_run_report_filters_and_opens_a_timeline_at_its_divergence(
    browser: Browser, example_run: tuple[Path, Path], tmp_path: Path
) -> None:
    page, errors = browser.open(example_run[1])
    assert page.locator("#shown").inner_text() == "6 of 6 cases"
    assert page.locator('[data-count="waived"] b').inner_text() == "1"
    page.screenshot(path=tmp_path / "summary.png")
    page.select_option("#verdict", "waived")
    assert _visible_ids(page) == ["refund-wrong-unit"]
    page.select_option("#verdict", "")
    page.fill("#search", "INVENTORY")
    assert _visible_ids(page) == ["inventory-zero-stock"]
    page.screenshot(path=tmp_path / "filtered.png")
    page.fill("#search", "")
    page.click('#cases tr[data-case="refund-wrong-unit"]')
    marked = page.locator("#case tr.divergent")
    marked.wait_for()
    assert marked.is_visible() and marked.count() == 1
    assert "divergence" in marked.inner_text() and "$.request.messages[0].content" in (
        marked.inner_text()
    )
    assert page.locator("#case #divergence").inner_text().startswith("divergence ModelRequest")
    assert "payments-team" in page.locator("#case table.waivers").inner_text()  # the owner
    page.screenshot(path=tmp_path / "timeline.png")
    page.locator("#case tr.divergent details summary").first.click()  # request messages
    assert "refund assistant" in marked.inner_text()
    assert errors == []
    assert {p.name for p in tmp_path.glob("*.png")} == {
        "summary.png",
        "filtered.png",
        "timeline.png",
    }


def test_untrusted_markup_in_a_tool_result_shows_as_text_and_never_runs(
    browser: Browser, example_run: tuple[Path, Path], tmp_path: Path, cli: object
) -> None:
    from corpus_tool.cli import main

    hostile = hostile_results(example_run[0], tmp_path / "hostile.json")
    target = tmp_path / "hostile.html"
    assert main(["report", str(hostile), "-o", str(target)]) == 0
    page, errors = browser.open(target, "#case=refund-success")
    page.locator("#case h2").wait_for()
    text = page.locator("#case").inner_text()
    assert text.count(HOSTILE) >= 2  # the tool result and the output, verbatim
    assert page.evaluate("window.__pwned") is None
    assert HOSTILE in page.locator('#cases tr[data-case="refund-success"]').inner_text()
    assert page.locator("#case img").count() == 0
    page.screenshot(path=tmp_path / "hostile.png")
    assert errors == []


def test_gate_report_shows_the_regression_base_against_head(
    browser: Browser, shop: ShopRepo, tmp_path: Path
) -> None:
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", BROKEN_PRICING)
    shop.commit("refunds in display units")
    target = tmp_path / "gate.html"
    ran = shop.corpus("gate", "--base", "main", "--all", "--html", str(target))
    assert ran.code == 1, ran.err
    page, errors = browser.open(target)
    assert page.locator("#gate-verdict").inner_text().startswith("blocked")
    page.select_option("#gatekind", "regression")
    assert _visible_ids(page) == [REFUND]
    page.click(f'#cases tr[data-case="{REFUND}"]')
    changed = page.locator("#case tr.changed").first
    changed.wait_for()
    heads = page.locator("#case table.timeline thead").inner_text()
    assert "base" in heads and "head" in heads
    assert "$.arguments.amount" in changed.inner_text()  # 1990 on base, 19 on head
    assert page.locator("#case tr.added").count() == 0  # the stopped call is shown once
    page.screenshot(path=tmp_path / "gate.png", full_page=True)
    assert errors == []


def test_live_report_shows_the_model_cost_and_a_flaky_case_passes_out_of_k(
    browser: Browser, cli: Cli, provider: ModelScript, tmp_path: Path
) -> None:
    provider.skip_rate = 0.5
    root = live_corpus(tmp_path / "corpus", prompt=EDITED)
    results, target = tmp_path / "live.json", tmp_path / "live.html"
    args = ("check", "--model", "live", "--repeat", "2", "--results", results, "--html", target)
    assert cli("-C", root, *args).code in (0, 1)
    doc = json.loads(results.read_text(encoding="utf-8"))
    page, errors = browser.open(target)
    tile = page.locator('[data-live="input_tokens"] b')
    assert tile.inner_text() == str(doc["live"]["input_tokens"])
    assert page.locator('[data-count="flaky"] b').inner_text() == str(doc["summary"]["flaky"])
    page.select_option("#verdict", "flaky")
    flaky = [c for c in doc["cases"] if c["verdict"] == "flaky"]
    assert _visible_ids(page) == [c["case"] for c in flaky]
    case = flaky[0]
    page.click(f'#cases tr[data-case="{case["case"]}"]')
    live = page.locator("#case #live")
    live.wait_for()
    text = live.inner_text()
    assert f"passed {case['passes']} of {case['attempts']} attempt(s)" in text
    usage = case["live"]
    assert f"{usage['input_tokens']} input and {usage['output_tokens']} output tokens" in text
    for call in case["unmatched"]:
        assert f"seq {call['seq']} {call['tool']}" in text
    page.screenshot(path=tmp_path / "live.png")
    assert errors == []


def test_live_gate_report_counts_its_own_verdicts_in_the_summary(
    browser: Browser, cli: Cli, provider: ModelScript, tmp_path: Path
) -> None:
    """A live gate's verdict that a recorded gate never gives (here `insufficient data`: 0.9
    against 0.85 at K=4) gets a summary tile with its count, and the kind filter finds it."""
    root = live_repo(tmp_path)
    rates(provider, 0.9, 0.85)
    target = tmp_path / "gate.html"
    gate = ("gate", "--base", "HEAD~1", "--head", "HEAD", "--model", "live", "--repeat", "4")
    ran = cli("-C", root, *gate, "--format", "json", "--html", target)
    assert ran.code == 0, ran.out + ran.err
    verdicts = [c["verdict"] for c in json.loads(ran.out)["cases"]]
    assert verdicts == ["insufficient_data"]
    page, errors = browser.open(target)
    assert page.locator('[data-count="insufficient_data"] b').inner_text() == "1"
    assert "insufficient data" in page.locator('[data-count="insufficient_data"]').inner_text()
    page.select_option("#gatekind", "insufficient_data")
    assert _visible_ids(page) == [LIVE_CASE]
    assert errors == []
