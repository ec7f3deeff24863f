"""The HTML report in headless Chromium: first paint, the case list shown, a case's timeline
opened (its details inflated on the first open). Debian's Chromium through Playwright, with
the launch the browser tests use (corpus_tool/testing/browser.py)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from corpus_tool.testing import browser


def available() -> str | None:
    """Why the browser figures cannot be measured here, or None when they can."""
    return browser.missing()


def paints(html: Path, repeat: int, case: str) -> list[dict[str, float]]:
    """Per run, in seconds from navigation start: first contentful paint, the case list
    filled, and the wall time of opening `case` (its timeline drawn)."""
    with browser.chromium() as context:
        return [_one(context, html, case) for _ in range(repeat)]


def _one(context: Any, html: Path, case: str) -> dict[str, float]:
    page = context.new_page()
    try:
        page.goto(html.resolve().as_uri())
        page.wait_for_selector("#cases tbody tr")
        listed = page.evaluate("performance.now()") / 1000
        fcp = page.evaluate(
            "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || 0"
        )
        started = time.perf_counter()
        page.click(f'#cases tr[data-case="{case}"]')
        page.wait_for_selector("#case table.timeline")
        opened = time.perf_counter() - started
        return {"first_paint_s": fcp / 1000, "list_s": listed, "open_case_s": opened}
    finally:
        page.close()


def results_of_recordings(corpus: Path, out: Path) -> Path:
    """A results document whose every case 'replayed' its own recording: the distinct traces
    of the generated bench corpus (bench/corpus.py), where the check corpus repeats five cases
    (which gzip would flatter)."""
    import json

    import yaml

    from corpus_tool.io import schema

    cases = []
    for trace_path in sorted((corpus / "cases").glob("*/trace.yaml")):
        trace = yaml.safe_load(trace_path.read_text(encoding="utf-8"))
        if schema.errors("trace", trace):  # the corpus plants a few broken cases for validate
            continue
        trajectory = {"events": trace["events"], "terminal": trace["terminal"]}
        cases.append({"case": trace["id"], "verdict": "passed", "status": "active",
                      "tier": "fast", "tags": [], "mode": "strict", "duration_ms": 1.0,
                      "failed_checks": [], "not_reached": [], "checks": [],
                      "divergence": None, "trajectory": trajectory})  # fmt: skip
    summary = {"total": len(cases), "passed": len(cases), "failed": 0, "error": 0,
               "known_unknown": 0, "skipped": 0, "waived": 0}  # fmt: skip
    doc = {"schema_version": 1, "tool": {"name": "corpus-tool", "version": "bench"},
           "command": "replay", "corpus": "bench", "summary": summary, "cases": cases}  # fmt: skip
    out.write_text(json.dumps(doc), encoding="utf-8")
    return out
