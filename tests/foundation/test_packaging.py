"""`pip install .` ships a working tool: the wheel, installed alone, runs from any directory."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.conftest import EXAMPLES, ROOT

SOURCES = ["pyproject.toml", "README.md", "corpus_tool", "schemas"]


def _build_wheel(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, src / name)
    isolation = [] if importlib.util.find_spec("hatchling") is None else ["--no-build-isolation"]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            *isolation,
            "-w",
            str(tmp_path / "dist"),
            str(src),
        ],
        check=True,
        capture_output=True,
    )
    [wheel] = (tmp_path / "dist").glob("corpus_tool-*.whl")
    return wheel


def _venv_with(wheel: Path, tmp_path: Path) -> Path:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    # the dependencies come from this environment, after the venv's own site-packages
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(site, "deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    return venv


def test_wheel_in_fresh_venv_runs_from_another_directory(tmp_path: Path) -> None:
    venv = _venv_with(_build_wheel(tmp_path), tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    corpus = shutil.copytree(EXAMPLES / "corpus", tmp_path / "corpus")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(venv / "bin" / "corpus"), *args],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
        )

    assert run("--help").returncode == 0
    validated = run("-C", str(corpus), "validate")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    where = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import corpus_tool.schema as s; print(s.schema_dir())",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip().startswith(str(venv)), "schemas come from the installed wheel"
