"""An agent in another language: a Node script using the real `openai` npm package (installed
here from the registry), replayed unchanged through corpus.yaml `agent.command`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.replay.provider_agents import ANSWER, node_source, use_command, weather_corpus

NODE_JSON = (",", ":")  # JSON.stringify's separators: how the Node agent writes tool results


@pytest.fixture(scope="module")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """node_modules with the real `openai` package, from the npm registry (skips without node,
    npm or the registry)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed (.ci/run installs them on CI)")
    where = tmp_path_factory.mktemp("npm")
    (where / "package.json").write_text('{"name": "agent", "private": true}', encoding="utf-8")
    argv = ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "openai@^5"]
    try:
        done = subprocess.run(argv, cwd=where, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip("npm install openai timed out (no registry?)")
    if done.returncode != 0:
        pytest.skip(f"npm install openai failed (no registry?): {done.stderr.strip()[-200:]}")
    return where / "node_modules"


def node_corpus(tmp_path: Path, cli: Any, node_modules: Path, mutation: str = "") -> Path:
    root = weather_corpus(tmp_path / "corpus", cli, "openai", NODE_JSON)
    (root / "node_modules").symlink_to(node_modules, target_is_directory=True)
    (root / "agent.mjs").write_text(node_source(mutation), encoding="utf-8")
    use_command(root, ["node", "agent.mjs", "{input}"])
    return root


def checked(cli: Any, root: Path) -> tuple[int, dict[str, Any]]:
    done = cli("check", "--format", "json", cwd=root)
    assert done.code in (0, 1), done.err
    return done.code, json.loads(done.out)["cases"][0]


def test_node_agent_replays_unchanged_through_agent_command(
    tmp_path: Path, cli: Any, node_modules: Path
) -> None:
    root = node_corpus(tmp_path, cli, node_modules)
    code, case = checked(cli, root)
    assert (code, case["verdict"], case["divergence"]) == (0, "passed", None), case
    assert case["trajectory"]["terminal"] == {"status": "succeeded", "output": ANSWER}
    tools = [e for e in case["trajectory"]["events"] if e["type"] == "tool_call"]
    assert [(e["tool"], e["arguments"]) for e in tools] == [("get_weather", {"city": "Paris"})]


def test_node_agent_with_a_changed_prompt_fails_with_a_model_request_divergence(
    tmp_path: Path, cli: Any, node_modules: Path
) -> None:
    root = node_corpus(tmp_path, cli, node_modules, "prompt")
    code, case = checked(cli, root)
    assert (code, case["verdict"]) == (1, "failed")
    assert case["divergence"]["kind"] == "ModelRequest"
    assert case["divergence"]["step"] == 1
