"""The base install pulls no agent framework, `import corpus_tool` loads none, and an adapter
whose framework is missing says which extra installs it."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from tests.conftest import ROOT

FRAMEWORKS = ("agents", "langchain_core", "langgraph", "pydantic_ai", "openai")
DISTRIBUTIONS = ("openai-agents", "langchain-core", "langgraph", "pydantic-ai", "openai")
EXTRAS = {"openai-agents": "openai-agents", "langchain": "langchain-core",
          "pydantic-ai": "pydantic-ai-slim"}  # fmt: skip


def _loaded_after(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print('\\n'.join(sorted(sys.modules)))"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return [m for m in done.stdout.split() if m.split(".")[0] in FRAMEWORKS]


def test_import_corpus_tool_and_its_runtime_loads_no_framework() -> None:
    # the frameworks are installed here (the test extra): importable, and still not imported
    code = (
        "import corpus_tool\n"
        "from corpus_tool import ModelResponse, Runtime, ToolCall, ToolError, record\n"
        "import corpus_tool.adapters, corpus_tool.cli, corpus_tool.replay.engine\n"
        "import corpus_tool.replay.workers.worker, corpus_tool.commands.check"
    )
    assert _loaded_after(code) == []
    assert "agents" in _loaded_after("import corpus_tool.adapters.openai_agents")


def test_wheel_requires_no_framework_except_through_its_extra(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode("utf-8"))
    requires = [r.replace('"', "'") for r in metadata.get_all("Requires-Dist") or []]
    base = [r for r in requires if "extra ==" not in r]
    assert base and not [r for r in base if r.lower().startswith(DISTRIBUTIONS)], base
    extras = metadata.get_all("Provides-Extra") or []
    for extra, distribution in EXTRAS.items():
        assert extra in extras
        assert any(r.startswith(distribution) and f"extra == '{extra}'" in r for r in requires), (
            extra,
            requires,
        )


def test_langchain_extra_installs_langgraph_which_the_adapter_replays(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode("utf-8"))
    requires = [r.replace('"', "'") for r in metadata.get_all("Requires-Dist") or []]
    assert any(r.startswith("langgraph") and "extra == 'langchain'" in r for r in requires), (
        requires
    )


@pytest.mark.parametrize(
    ("adapter", "framework", "extra"),
    [("openai_agents", "agents", "openai-agents"), ("langchain", "langchain_core", "langchain"),
     ("pydantic_ai", "pydantic_ai", "pydantic-ai")],
)  # fmt: skip
def test_adapter_without_its_framework_names_the_extra(
    adapter: str, framework: str, extra: str
) -> None:
    hide = (
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] == {framework!r}:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        f"import corpus_tool.adapters.{adapter}\n"
    )
    done = subprocess.run([sys.executable, "-c", hide], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert f"pip install 'corpus-tool[{extra}]'" in last and framework in last, last


def test_adapters_import_no_private_module_of_a_framework() -> None:
    # a framework's `_` modules change without notice (pydantic_ai._instrumentation did)
    private = []
    for path in sorted((ROOT / "corpus_tool" / "adapters").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            private += [
                f"{path.name}: {n}"
                for n in names
                if not n.startswith("corpus_tool")
                and any(part.startswith("_") for part in n.split(".") if part != "__future__")
            ]
    assert private == []
