"""Reports of the example corpus (passing, failing, waived, known_unknown cases), and a
headless Chromium (Debian's, through Playwright) to open them in."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.testing import browser as browser_launch
from tests.conftest import EXAMPLES, ROOT, TEST_KEY

CHROMIUM = os.environ.get("CORPUS_TEST_CHROMIUM", browser_launch.CHROMIUM)
HOSTILE = '</script><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
"""Untrusted text a tool result may carry: it must show as text and never run."""


def corpus(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`corpus ARGS...` as a user runs it (a process, from the repository root)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CORPUS_REDACTION_KEY": TEST_KEY}
    env.pop("GITHUB_STEP_SUMMARY", None)
    argv = [sys.executable, "-m", "corpus_tool", *map(str, args)]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="session")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """`corpus check --results R.json --html R.html` of the example corpus: (results, html)."""
    where = tmp_path_factory.mktemp("example-run")
    results, html = where / "results.json", where / "report.html"
    done = corpus("-C", EXAMPLES / "corpus", "check", "--results", results, "--html", html)
    assert done.returncode == 0, done.stdout + done.stderr
    return results, html


def read_json(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def hostile_results(results: Path, target: Path) -> Path:
    """The example results with untrusted markup in a tool result, an output and a message."""
    doc = copy.deepcopy(read_json(results))
    case = next(c for c in doc["cases"] if c["case"] == "refund-success")
    tool = next(e for e in case["trajectory"]["events"] if e["type"] == "tool_call")
    tool["result"] = {"note": HOSTILE}
    case["output"] = HOSTILE
    case["reason"] = HOSTILE  # the list's `why` column: in the page's JSON, parsed at load
    case["checks"][0]["message"] = HOSTILE
    target.write_text(json.dumps(doc), encoding="utf-8")
    return target


def regressed(results: Path, target: Path) -> Path:
    """The example results with refund-success failing tools.args: a regression over them."""
    doc = copy.deepcopy(read_json(results))
    case = next(c for c in doc["cases"] if c["case"] == "refund-success")
    case["verdict"], case["failed_checks"] = "failed", ["tools.args"]
    check = next(c for c in case["checks"] if c["name"] == "tools.args")
    check.update(
        outcome="failed", passed=False, message="create_refund at seq 4: amount 199, wanted 19900"
    )
    doc["summary"]["passed"] -= 1
    doc["summary"]["failed"] += 1
    target.write_text(json.dumps(doc), encoding="utf-8")
    return target


class Browser:
    """One headless Chromium; `open` a file and get the page and the console errors."""

    def __init__(self, context: Any) -> None:
        self.context = context

    def open(self, path: Path, fragment: str = "") -> tuple[Any, list[str]]:
        page = self.context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: None if r.url.startswith(("file:", "data:", "blob:"))
                else errors.append(f"network request: {r.url}"))  # fmt: skip
        page.goto(path.resolve().as_uri() + fragment)
        page.wait_for_selector("#cases tbody tr")
        return page, errors


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium through Playwright (no `playwright install`: no network here)."""
    why = browser_launch.missing(CHROMIUM)
    if why is not None:
        pytest.skip(f"{why}, or set CORPUS_TEST_CHROMIUM")
    with browser_launch.chromium(CHROMIUM, viewport={"width": 1280, "height": 860}) as context:
        yield Browser(context)


@pytest.fixture
def shop(tmp_path: Path) -> Any:
    """The gate's shop repository (tests/gate/gate_repo.py): an agent and its recorded cases."""
    from tests.gate.gate_repo import build

    return build(tmp_path)
