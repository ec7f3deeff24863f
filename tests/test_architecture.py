"""The layers of docs/architecture.md hold, and an import against them is caught."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

LINT = Path(sys.executable).with_name("lint-imports")


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, check=False
    )


def _copy(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(
        ROOT / "corpus_tool", tree / "corpus_tool", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def _pyproject() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _contract(contract_id: str) -> dict[str, Any]:
    """The import-linter contract of that id, as pyproject.toml declares it."""
    contracts = _pyproject()["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c["id"] == contract_id]
    return contract  # type: ignore[no-any-return]


def _top_names() -> list[str]:
    """The packages and modules right under corpus_tool/, as they are on disk."""
    package = ROOT / "corpus_tool"
    names = [p.name for p in package.iterdir() if p.is_dir() and (p / "__init__.py").is_file()]
    return names + [p.stem for p in package.glob("*.py") if p.stem != "__init__"]


def test_architecture_layer_contracts_are_kept() -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_architecture_an_upward_import_breaks_the_layers(tmp_path: Path) -> None:
    tree = _copy(tmp_path)
    assert _lint(tree).returncode == 0
    model = tree / "corpus_tool" / "model" / "values.py"
    model.write_text(model.read_text(encoding="utf-8") + "\nimport corpus_tool.grade\n")
    done = _lint(tree)
    assert done.returncode == 1
    assert "Layers: the CLI on top" in done.stdout and "BROKEN" in done.stdout
    assert "corpus_tool.model.values -> corpus_tool.grade" in done.stdout


def test_architecture_side_by_side_packages_may_not_import_each_other(tmp_path: Path) -> None:
    tree = _copy(tmp_path)
    engine = tree / "corpus_tool" / "replay" / "engine.py"
    engine.write_text(engine.read_text(encoding="utf-8") + "\nimport corpus_tool.grade.view\n")
    done = _lint(tree)
    assert done.returncode == 1
    assert "corpus_tool.replay.engine -> corpus_tool.grade.view" in done.stdout


def test_architecture_doc_names_every_package_and_top_module() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [n for n in sorted(_top_names()) if f"`{n}" not in doc]
    assert missing == [], f"docs/architecture.md does not describe: {missing}"


def test_architecture_the_core_may_not_import_an_agent_framework(tmp_path: Path) -> None:
    tree = _copy(tmp_path)
    engine = tree / "corpus_tool" / "replay" / "engine.py"
    engine.write_text(engine.read_text(encoding="utf-8") + "\nimport langchain_core\n")
    done = _lint(tree)
    assert done.returncode == 1
    assert "Frameworks: only corpus_tool.adapters" in done.stdout and "BROKEN" in done.stdout
    assert "corpus_tool.replay.engine -> langchain_core" in done.stdout


def test_architecture_frameworks_contract_holds_every_module_but_the_adapters() -> None:
    frameworks = _contract("frameworks")
    expected = sorted(f"corpus_tool.{n}" for n in _top_names() if n != "adapters")
    assert sorted(frameworks["source_modules"]) == expected
    assert {"agents", "langchain_core", "langgraph", "pydantic_ai"} <= set(
        frameworks["forbidden_modules"]
    )


def test_architecture_a_command_importing_another_breaks_the_commands_contract(
    tmp_path: Path,
) -> None:
    tree = _copy(tmp_path)
    check = tree / "corpus_tool" / "commands" / "check.py"
    check.write_text(check.read_text(encoding="utf-8") + "\nimport corpus_tool.commands.replay\n")
    done = _lint(tree)
    assert done.returncode == 1
    assert "Commands: no command imports another BROKEN" in done.stdout
    assert "corpus_tool.commands.check -> corpus_tool.commands.replay" in done.stdout


def test_architecture_commands_contract_holds_every_command_module() -> None:
    commands = _contract("commands")
    folder = ROOT / "corpus_tool" / "commands"
    stems = sorted(p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "add_batch"))
    assert sorted(commands["modules"]) == [f"corpus_tool.commands.{s}" for s in stems]


def test_the_projects_mypy_hook_has_every_runtime_dependency() -> None:
    """`pre-commit run` types the package against the libraries it imports: a runtime
    dependency missing from the hook's environment fails the hook, not the suite's mypy."""
    config = _pyproject()
    hooks = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    (mypy,) = [h for repo in hooks["repos"] for h in repo["hooks"] if h["id"] == "mypy"]

    def name(requirement: str) -> str:
        return re.split(r"[<>=!~\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")

    installed = {name(d) for d in mypy["additional_dependencies"]}
    runtime = {name(d) for d in config["project"]["dependencies"]}
    stubs = {"pyyaml": "types-pyyaml"}  # typed through its stubs package
    assert sorted(d for d in runtime if stubs.get(d, d) not in installed) == []
