"""`pip install .` ships a working tool: the wheel, installed alone, runs from any directory."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import EXAMPLES
from tests.installed import run_in


def test_wheel_in_fresh_venv_runs_from_another_directory(
    installed_venv: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    corpus = shutil.copytree(EXAMPLES / "corpus", tmp_path / "corpus")
    helped = run_in(installed_venv, "corpus", "--help", cwd=elsewhere)
    assert helped.returncode == 0 and "usage: corpus" in helped.stdout
    validated = run_in(installed_venv, "corpus", "-C", str(corpus), "validate", cwd=elsewhere)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "no problems" in validated.stdout
    code = "import corpus_tool.io.schema as s; print(s.schema_dir())"
    where = run_in(installed_venv, "python", "-c", code, cwd=elsewhere)
    assert where.stdout.strip().startswith(str(installed_venv)), (
        "schemas come from the installed wheel"
    )
