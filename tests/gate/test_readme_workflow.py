"""The GitHub Actions workflow in the README, its `corpus` steps run as Actions would run them,
in a real repository whose change breaks a case: the job fails at the gate, with a summary."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import ROOT
from tests.gate.gate_repo import BROKEN_PRICING, ShopRepo


def _workflow() -> dict[str, Any]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### A GitHub Actions workflow") :]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block is not None
    doc: dict[str, Any] = yaml.safe_load(block.group(1))
    return doc


def _run_steps(shop: ShopRepo, env: dict[str, str], outputs: Path) -> list[tuple[str, int]]:
    ran: list[tuple[str, int]] = []
    for step in _workflow()["jobs"]["gate"]["steps"]:
        script = step.get("run")
        if script and script.startswith("pip install"):  # installed here already: the rest
            script = script.split("&&", 1)[1]
        elif not script or "corpus" not in script:
            continue
        said = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
        cases = said.get("cases", "")
        if "steps.affected.outputs.cases != ''" in str(step.get("if", "")) and not cases.strip():
            continue
        script = script.replace("${{ steps.affected.outputs.cases }}", cases)
        # GitHub runs `run:` with bash -e
        done = subprocess.run(["bash", "-e", "-c", script], cwd=shop.root, env=env, check=False)
        ran.append((step.get("name", "install"), done.returncode))
        if done.returncode != 0:
            break
    return ran


def test_readme_workflow_blocks_a_regression_and_writes_the_summary(shop: ShopRepo) -> None:
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", BROKEN_PRICING)
    shop.commit("refunds in display units")
    outputs, summary = shop.scratch / "outputs", shop.scratch / "summary.md"
    outputs.write_text("", encoding="utf-8")
    env = {
        **shop.env,
        "BASE": "main",
        "OUT": str(shop.scratch / "out"),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(summary),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
    }
    ran = _run_steps(shop, env, outputs)
    assert [name for name, _ in ran][1:] == [
        "Cases this change can affect",
        "Replay them on the head",
        "Gate against the base",
    ]
    assert [code for _, code in ran] == [0, 0, 0, 1], "only the gate fails the job"
    assert "gate: BLOCKED (1 regression)" in summary.read_text(encoding="utf-8")
    out = shop.scratch / "out"
    assert (out / "head.json").is_file() and (out / "gate.xml").is_file()
    assert "gate: BLOCKED (1 regression)" in (out / "gate.md").read_text(encoding="utf-8")
    assert shop.git("status", "--porcelain") == "", "nothing written into the checkout"
