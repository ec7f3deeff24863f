"""A git repository holding a copy of the example corpus with only refund-success, its agent
beside it, set up for live replay: the base commit, and a head commit that marks the prompt
`(head)` so the scripted model can tell the sides apart (ModelScript.cases keys)."""

from __future__ import annotations

import shutil
from pathlib import Path

from corpus_tool.testing.scripted_model import CaseScript, ModelScript
from tests.conftest import git
from tests.replay.live_corpus import live_corpus

CASE = "refund-success"
ORDER = "O-1001"  # refund-success's user message names it
HEAD_MARK = "(head)"
PROMPT = Path("examples") / "refund_agent" / "prompts" / "refund-v13.txt"


def live_repo(tmp_path: Path, keep: tuple[str, ...] = (CASE,)) -> Path:
    """The repository (its root is the corpus root), two commits: base, then the marked
    prompt. The cases not in `keep` and the example's waiver are left out."""
    root = live_corpus(tmp_path)
    for case in (root / "cases").iterdir():
        if case.is_dir() and case.name not in keep:
            shutil.rmtree(case)
    shutil.rmtree(root / "waivers", ignore_errors=True)
    (root / "waivers").mkdir()
    (root / "waivers" / ".gitkeep").write_text("", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    prompt = root / PROMPT
    prompt.write_text(prompt.read_text(encoding="utf-8").strip() + f" {HEAD_MARK}\n", "utf-8")
    git(root, "commit", "-q", "-am", "head: the prompt marked")
    return root


def rates(script: ModelScript, base: float, head: float, head_model: str | None = None) -> None:
    """Known pass rates of refund-success on each side (the chance of the get_order lookup)."""
    script.reset()
    script.cases = {
        ORDER: CaseScript(base),
        f"{ORDER}&{HEAD_MARK}": CaseScript(head, head_model),
    }
