"""The fast lane: `pytest -m "not slow"` leaves out the measured slow tests, and the list of them
(tests/slow_tests.py) names only tests that exist."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT
from tests.slow_tests import SLOW


def test_every_slow_entry_names_a_test_function() -> None:
    stale = []
    for node in sorted(SLOW):
        path, name = node.split("::")
        source = ROOT / path
        text = source.read_text(encoding="utf-8") if source.is_file() else ""
        if not re.search(rf"^def {re.escape(name)}\(", text, re.M):
            stale.append(node)
    assert stale == []


def test_the_fast_lane_leaves_the_slow_tests_out() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-m",
            "not slow",
            "-p",
            "no:cacheprovider",
            "tests/author/test_add_batch.py",
            "tests/validate/test_precommit.py",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert not [c for c in collected if c.split("[", 1)[0] in SLOW], collected
    assert "test_precommit_hook_passes_clean_corpus_and_blocks_broken_one" not in done.stdout
    assert any("test_add_batch" in c for c in collected), "the quick tests of a module stay"
