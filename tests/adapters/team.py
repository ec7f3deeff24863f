"""A team's repository for the adapter tests: one framework example agent, git, and `corpus`.

The incidents come from the frameworks themselves: `examples/record_framework_incidents.py`
runs the agent in its real framework against a scripted model and exports with the
framework's own tracing. Its story is the ground truth every test checks against.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from corpus_tool.cli import main
from examples import record_framework_incidents as story
from tests.conftest import EXAMPLES, TEST_KEY, git

FRAMEWORKS = ("openai_agents", "langchain", "pydantic_ai")
GUARD_S = 180  # far above a replay's time limit: only a hung `corpus` process reaches it
PLANTED = [
    (name, args)
    for turn in story.MODEL_TURNS
    for _id, name, args in turn  # the tool calls the scripted model asks for, in order
]
"""get_order, then create_refund twice: the first attempt hits the planted gateway timeout."""


def team_repo(tmp_path: Path, framework: str) -> Path:
    """A git repository holding the framework's example agent, as a team holds its own."""
    repo = tmp_path / "team"
    ignore = shutil.ignore_patterns("__pycache__", "incidents")
    shutil.copytree(EXAMPLES / f"{framework}_agent", repo / "examples" / f"{framework}_agent",
                    ignore=ignore)  # fmt: skip
    shutil.copy(EXAMPLES / "shop.py", repo / "examples" / "shop.py")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "the team's agent")
    return repo


def new_corpus(repo: Path, framework: str) -> Path:
    """`corpus init evals`, pointed at the agent's entrypoint."""
    corpus = repo / "evals"
    assert main(["init", str(corpus)]) == 0
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    entry = f"  entrypoint: examples.{framework}_agent.agent:run"
    config.write_text(text.replace("  # entrypoint: my_agent.main:run", entry), encoding="utf-8")
    return corpus


def exported(framework: str, out: Path) -> Path:
    """The story, run in the framework and written as its own tracing exported it."""
    make = {"openai_agents": story.openai_agents, "langchain": story.langchain,
            "pydantic_ai": story.pydantic_ai}[framework]  # fmt: skip
    path = out / f"{framework}-export.json"
    path.write_text(json.dumps(make()), encoding="utf-8")
    return path


def recorded(out: Path) -> Path:
    """The story recorded through the LangChain adapter in record mode: a native incident."""
    path = out / "recorded.json"
    path.write_text(json.dumps(story.langchain_recorded()), encoding="utf-8")
    return path


def corpus_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`corpus ARGS...` as a user runs it: a real process (its replay workers are too)."""
    env = {**os.environ, "CORPUS_REDACTION_KEY": TEST_KEY}
    argv = [sys.executable, "-m", "corpus_tool", *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=GUARD_S)


def checked(corpus: Path) -> tuple[int, dict[str, Any]]:
    """`corpus check --format json`: exit status and the report."""
    done = corpus_cli("-C", corpus, "check", "--format", "json")
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def edit(path: Path, old: str, new: str) -> None:
    """A code change in the team's agent."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def tool_calls(events: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [(e["tool"], e["arguments"]) for e in events if e["type"] == "tool_call"]
