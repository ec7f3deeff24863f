"""A real git repository holding a small shop agent and its corpus in `evals/`, for the gate.

The cases are recorded from the agent itself with `corpus_tool.record` (a scripted model and
scripted tools) and ingested with `corpus add`, as a team would make them; every test then
changes the agent or the corpus in commits and runs `corpus gate` as a real process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from corpus_tool import ModelResponse, ToolCall
from corpus_tool.replay.record import RecordMeta, record
from tests.conftest import GIT_ENV, TEST_KEY

AGENT = textwrap.dedent(
    """
    from shop.pricing import refund_amount


    def run(case_input, rt):
        messages = [{"role": "user", "content": case_input["user_message"]}]
        reply = rt.model(messages, model="shop-model")
        seen = []
        for call in reply.tool_calls:
            arguments = dict(call.arguments)
            if call.name == "create_refund":
                arguments["amount"] = refund_amount(arguments["amount"])
            seen.append(rt.tool(call.name, arguments))
        return {"status": "succeeded", "output": f"done: {seen!r}"}
    """
)
PRICING = "def refund_amount(cents):\n    return cents\n"
BROKEN_PRICING = "def refund_amount(cents):\n    return cents // 100  # display units: a bug\n"
BLOCKING_PRICING = textwrap.dedent(
    """
    import os
    import time


    def refund_amount(cents):
        # tells the test it is running, then waits to be interrupted
        with open(os.environ["GATE_MARKER"], "w", encoding="utf-8") as marker:
            marker.write("replaying")
        time.sleep(600)
        return cents
    """
)
CONFIG = """\
schema_version: 1
name: shop-agent
agent:
  entrypoint: shop.agent:run
  prompt_version: shop-v1
  models: [shop-model]
redaction:
  key_env: CORPUS_REDACTION_KEY
replay:
  mode: strict
  env: [GATE_MARKER]
impact:
  rules:
    - {paths: ["shop/pricing.py"], tools: [create_refund]}
  unmapped: all
waivers:
  max_days: 90
"""
REFUND, LOOKUP = "refund-order", "lookup-order"
INPUTS = {REFUND: "refund order O-1 please", LOOKUP: "where is order O-2?"}


def _model(messages: list[dict[str, Any]], **request: Any) -> ModelResponse:
    if "refund" in messages[0]["content"]:
        return ModelResponse(
            None, (ToolCall("c1", "create_refund", {"order": "O-1", "amount": 1990}),)
        )
    return ModelResponse(None, (ToolCall("c1", "get_order", {"order": "O-2"}),))


TOOLS = {
    "create_refund": lambda args: {"refund": "R-1", "amount": args["amount"]},
    "get_order": lambda args: {"order": args["order"], "state": "shipped"},
}


@dataclass(frozen=True)
class Ran:
    """One `corpus` process: exit status, stdout, stderr."""

    code: int
    out: str
    err: str


class ShopRepo:
    """The repository, with helpers to commit changes and run `corpus` in it."""

    def __init__(self, root: Path, scratch: Path) -> None:
        self.root = root
        self.scratch = scratch
        self.env = {**os.environ, **GIT_ENV, "CORPUS_REDACTION_KEY": TEST_KEY}
        self.env["GATE_MARKER"] = str(scratch / "marker")
        self.env.pop("GITHUB_STEP_SUMMARY", None)

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.root, env=self.env, check=True, capture_output=True, text=True
        )
        return done.stdout

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "corpus_tool", "-C", str(self.root / "evals"), *args]

    def corpus(self, *args: str, env: dict[str, str] | None = None) -> Ran:
        done = subprocess.run(
            self.argv(*args),
            cwd=self.root,
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return Ran(done.returncode, done.stdout, done.stderr)

    def waiver(self, waiver_id: str, case: str, expires: date, checks: str = "[all]") -> None:
        self.write(
            f"evals/waivers/{waiver_id}.yaml",
            f"schema_version: 1\nid: {waiver_id}\ncase: {case}\nchecks: {checks}\n"
            f"reason: the unit fix lands next sprint\nowner: shop-team\n"
            f"expires: '{expires.isoformat()}'\ncreated: '{date.today().isoformat()}'\n",
        )

    def state(self) -> dict[str, str]:
        """What the user's checkout is: HEAD, branch, status, the index, the worktrees."""
        return {
            "head": self.git("rev-parse", "HEAD"),
            "branch": self.git("symbolic-ref", "-q", "HEAD"),
            "status": self.git("status", "--porcelain", "--untracked-files=all"),
            "index": self.git("ls-files", "-s"),
            "worktrees": self.git("worktree", "list", "--porcelain"),
        }


def build(tmp_path: Path) -> ShopRepo:
    """The repository on `main`: the agent, two recorded cases, committed."""
    repo = ShopRepo(tmp_path / "repo", tmp_path)
    repo.root.mkdir()
    repo.git("init", "-q", "-b", "main")
    repo.write("shop/__init__.py", "")
    repo.write("shop/agent.py", AGENT)
    repo.write("shop/pricing.py", PRICING)
    repo.write("evals/corpus.yaml", CONFIG)
    (repo.root / "evals" / "cases").mkdir(parents=True)
    (repo.root / "evals" / "waivers").mkdir()
    for case, message in INPUTS.items():
        incident = _record(repo.root, case, message, tmp_path)
        done = repo.corpus("add", str(incident), "--id", case)
        assert done.code == 0, done.err
    repo.commit("the shop agent and its corpus")
    return repo


def _record(root: Path, case: str, message: str, tmp_path: Path) -> Path:
    sys.path.insert(0, str(root))
    try:
        import shop.agent as agent

        meta = RecordMeta(
            trace_id=f"t-{case}",
            agent={"name": "shop", "version": "1.0", "promptVersion": "shop-v1"},
            started_at=datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc),
            seed=1,
        )
        out = tmp_path / f"{case}.json"
        record(agent.run, {"user_message": message}, model=_model, tools=TOOLS, meta=meta, out=out)
        return out
    finally:
        sys.path.pop(0)
        for name in [n for n in sys.modules if n == "shop" or n.startswith("shop.")]:
            del sys.modules[name]


def days(n: int) -> date:
    return date.today() + timedelta(days=n)


def gate_json(ran: Ran) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(ran.out)
    return doc
