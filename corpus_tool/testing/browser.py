"""Debian's Chromium through Playwright, launched one way for the browser tests
(tests/report/) and the report bench (bench/report_bench.py): no `playwright install`, no
network, a throwaway profile."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
"""Where Debian's `chromium` package puts the browser."""
ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def missing(executable: str = CHROMIUM) -> str | None:
    """Why no browser can be launched here, or None when one can."""
    if not Path(executable).exists():
        return f"no Chromium at {executable} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    return None


@contextmanager
def chromium(executable: str = CHROMIUM, **options: Any) -> Iterator[Any]:
    """A persistent Playwright context of `executable` in a temporary profile, removed after;
    `options` go to `launch_persistent_context` (a viewport, say)."""
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="corpus-chromium-")
    try:
        with sync_playwright() as driver:
            context = driver.chromium.launch_persistent_context(
                profile, executable_path=executable, args=list(ARGS), headless=True, **options
            )
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
