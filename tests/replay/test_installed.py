"""Installed from the wheel in a fresh venv, `corpus check` replays the example corpus."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import EXAMPLES
from tests.installed import run_in


def test_check_from_a_fresh_venv_prints_a_verdict_per_case(
    installed_venv: Path, tmp_path: Path
) -> None:
    done = run_in(installed_venv, "corpus", "-C", str(EXAMPLES / "corpus"), "check", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS  refund-success" in done.stdout
    assert "KNOWN cancel-refund-span-lost" in done.stdout
    assert "WAIVED refund-wrong-unit" in done.stdout
    assert "6 case(s): 4 passed, 0 failed, 0 error, 1 known_unknown, 0 skipped, 1 waived" in (
        done.stdout
    )
