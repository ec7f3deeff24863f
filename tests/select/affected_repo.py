"""Helpers for the `affected` tests: a git repository with a corpus in `evals/`, and a runner.

A uniquely named module (not conftest) so other test folders' helpers never shadow it.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.cli import main
from tests import conftest

CONFIG = """\
schema_version: 1
name: shop-agent
impact:
  rules:
    - {paths: ["src/tools/refund.py"], tools: [create_refund]}
    - {paths: ["src/tools/orders.py"], tools: [get_order]}
    - {paths: ["src/prompts/**"], all: true}
    - {paths: ["src/inventory"], tags: [inventory]}
    - {paths: ["src/legacy/*.py"], cases: ["legacy-*"]}
    - {paths: ["docs/**"]}
  unmapped: UNMAPPED
"""

# case id -> (tools called, in order, tags, tier)
CASES: dict[str, tuple[list[str], list[str], str]] = {
    "refund-ok": (["get_order", "create_refund"], ["refund"], "fast"),
    "refund-twice": (["create_refund", "create_refund", "create_refund"], ["refund"], "full"),
    "order-lookup": (["get_order"], [], "fast"),
    "stock-zero": (["search_inventory"], ["inventory"], "fast"),
    "legacy-export": ([], [], "archive"),
}


def trace_text(case_id: str, tools: list[str]) -> str:
    """A small trace.yaml: one model call, then one tool_call event per tool."""
    events: list[dict[str, Any]] = [{"seq": 1, "type": "model_call", "model": "m"}]
    for seq, tool in enumerate(tools, start=2):
        events.append({"seq": seq, "type": "tool_call", "tool": tool, "result": {"ok": True}})
    return json.dumps({"schema_version": 1, "id": case_id, "events": events}, indent=1)


def expected_text(case_id: str, tags: list[str], tier: str) -> str:
    return json.dumps(
        {"schema_version": 1, "id": case_id, "status": "active", "tier": tier, "tags": tags}
    )


@dataclass(frozen=True)
class Result(conftest.Result):
    """What a user sees of one `corpus affected` run, read as ids or JSON."""

    @property
    def ids(self) -> list[str]:
        return self.out.split()

    def json(self) -> Any:
        return json.loads(self.out)


class GitCorpus:
    """A git repository holding source files and a corpus under evals/."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.capsys = capsys

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.root, check=True, capture_output=True, text=True
        )
        return done.stdout

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def case(
        self, case_id: str, tools: list[str], tags: list[str] | None = None, tier: str = "fast"
    ) -> None:
        self.write(f"evals/cases/{case_id}/trace.yaml", trace_text(case_id, tools))
        self.write(f"evals/cases/{case_id}/expected.yaml", expected_text(case_id, tags or [], tier))

    def config(self, unmapped: str = "all") -> None:
        self.write("evals/corpus.yaml", CONFIG.replace("UNMAPPED", unmapped))

    def affected(self, *args: str, directory: str | None = None) -> Result:
        self.capsys.readouterr()
        where = ["-C", directory] if directory else []
        code = main([*where, "affected", *args])
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)


def fill(corpus: GitCorpus) -> None:
    corpus.config()
    for case_id, (tools, tags, tier) in CASES.items():
        corpus.case(case_id, tools, tags, tier)
    corpus.write(
        "evals/waivers/W-1.yaml",
        "schema_version: 1\nid: W-1\nkind: check\ncase: order-lookup\nchecks: [all]\n"
        "reason: lands next week\nowner: shop\nexpires: '2026-12-31'\n",
    )
    for path in ("src/tools/refund.py", "src/tools/orders.py", "src/app.py", "src/legacy/x.py"):
        corpus.write(path, f"# {path}\n")
    corpus.write("src/prompts/system.txt", "You are the shop assistant.\n")
    corpus.write("src/inventory/stock.py", "STOCK = {}\n")
    corpus.write("docs/guide.md", "# guide\n")
