"""The layers of docs/architecture.md hold, and an import against them is caught."""

from __future__ import annotations

import ast
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
    stems = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
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


LOOSE_MODULES = {"__init__", "__main__", "errors", "version", "pytest_plugin"}
"""The modules left at the top of the package: the public door, `python -m`, the error family
and the version every layer may import, and the pytest entry point pytest loads by name."""


def test_architecture_the_top_of_the_package_holds_only_the_argued_loose_modules() -> None:
    loose = {p.stem for p in (ROOT / "corpus_tool").glob("*.py")}
    assert loose == LOOSE_MODULES
    assert len(loose) <= 6


def test_architecture_the_layers_are_the_folders() -> None:
    layers = _contract("layers")["layers"]
    named = [n.strip().removeprefix("corpus_tool.") for layer in layers for n in layer.split("|")]
    assert sorted(named) == sorted(n for n in _top_names()), "every top name in one layer, once"
    assert all("." not in n for n in named), (
        "a layer is a folder or a loose module, not a module inside one"
    )


def _defined_classes() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "corpus_tool").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    return found


def test_architecture_no_class_name_is_defined_twice() -> None:
    twice = {name: where for name, where in _defined_classes().items() if len(where) > 1}
    assert twice == {}


UNTYPED = ("dict[str, Any]", "Mapping[str, Any]")


def test_architecture_gate_diff_and_waivers_take_no_untyped_documents() -> None:
    """Past the file boundary these packages read the typed model: no `dict[str, Any]` or
    `Mapping[str, Any]` in a signature (JSON they build is `model.json.Json`); nor the HTML
    report above them, which shows what they decided."""
    found = []
    for folder in ("gate", "diff", "waivers", "report"):
        for path in sorted((ROOT / "corpus_tool" / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    shown = (
                        ast.unparse(node.args)
                        + " -> "
                        + ast.unparse(node.returns or ast.Constant(None))
                    )
                    if any(u in shown for u in UNTYPED):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert found == []


def test_architecture_the_words_table_gives_each_word_one_row() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = doc.split("## Words", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ")]
    words = rows[1:]  # after the header
    assert len(words) > 50
    assert sorted(w for w in set(words) if words.count(w) > 1) == []
