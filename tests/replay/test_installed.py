"""Installed from the wheel in a fresh venv, `corpus check` replays the example corpus."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import EXAMPLES
from tests.foundation.test_packaging import _build_wheel, _venv_with


def test_check_from_a_fresh_venv_prints_a_verdict_per_case(tmp_path: Path) -> None:
    venv = _venv_with(_build_wheel(tmp_path), tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(venv / "bin" / "corpus"), "-C", str(EXAMPLES / "corpus"), "check"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "PASS  refund-success" in done.stdout
    assert "KNOWN cancel-refund-span-lost" in done.stdout
    assert "FAIL  refund-wrong-unit" in done.stdout
    assert "6 case(s): 4 passed, 1 failed, 0 error, 1 known_unknown, 0 skipped" in done.stdout
