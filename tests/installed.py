"""corpus-tool as a user installs it: the wheel built from this checkout, in a fresh venv."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["pyproject.toml", "README.md", "corpus_tool", "schemas"]


def build_wheel(tmp_path: Path) -> Path:
    """The wheel of a copy of the shipped sources (nothing else of the checkout)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, src / name)
    isolation = [] if importlib.util.find_spec("hatchling") is None else ["--no-build-isolation"]
    wheel = ["wheel", "-q", "--no-deps", *isolation, "-w", str(tmp_path / "dist"), str(src)]
    subprocess.run(
        [sys.executable, "-m", "pip", *wheel],
        check=True,
        capture_output=True,
    )
    [built] = (tmp_path / "dist").glob("corpus_tool-*.whl")
    return built


def venv_with(wheel: Path, tmp_path: Path) -> Path:
    """A fresh venv holding only the wheel; its dependencies come from this interpreter."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = ["--python", str(python), "install", "-q", "--no-deps", str(wheel)]
    subprocess.run(
        [sys.executable, "-m", "pip", *install],
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


def run_in(venv: Path, program: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the venv's `program` (corpus, python) from `cwd`, without this checkout on the path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(venv / "bin" / program), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
