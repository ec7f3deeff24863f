"""A two-case corpus whose agent misbehaves in one case, and `corpus check` run on it for real."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import EXAMPLES, TEST_KEY

HOSTILE, FINE = "inventory-zero-stock", "refund-success"  # the hostile case runs first
HANG_GUARD_S = 90  # far above --timeout 2: only a hung `corpus` process would reach it

AGENT = """
    import os, signal, socket, subprocess, sys, threading, time
    from pathlib import Path

    from examples.refund_agent.agent import run as fine

    CORPUS = Path(__file__).resolve().parent


    def run(case_input, rt):
        if "A100" in case_input["user_message"]:
            result = hostile(rt)
            if result is not None:
                return result
        return fine(case_input, rt)


    def hostile(rt):
    {body}
"""


def two_case_corpus(tmp_path: Path, body: str, prelude: str = "") -> Path:
    """Two example cases, the example agent's package, and an agent running `body` in the
    first case (`prelude` runs at import)."""
    root = tmp_path / "corpus"
    (root / "cases").mkdir(parents=True)
    (root / "waivers").mkdir()
    for case in (HOSTILE, FINE):
        shutil.copytree(EXAMPLES / "corpus" / "cases" / case, root / "cases" / case)
    shutil.copytree(EXAMPLES / "refund_agent", root / "examples" / "refund_agent")
    config = (EXAMPLES / "corpus" / "corpus.yaml").read_text(encoding="utf-8")
    config = config.replace("examples.refund_agent.agent:run", "hostile_agent:run")
    (root / "corpus.yaml").write_text(config, encoding="utf-8")
    code = textwrap.dedent(AGENT).format(body=textwrap.indent(body, " " * 4))
    (root / "hostile_agent.py").write_text(prelude + "\n" + code, encoding="utf-8")
    return root


def corpus_check(corpus: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`corpus check` as CI runs it: a real process, with the redaction key in its environment."""
    argv = [sys.executable, "-m", "corpus_tool", "-C", str(corpus), "check", "--timeout", "2"]
    argv += ["--results", str(tmp_path / "results.json"), "--junit", str(tmp_path / "junit.xml")]
    env = {**os.environ, "CORPUS_REDACTION_KEY": TEST_KEY}
    return subprocess.run(
        [*argv, *extra], capture_output=True, text=True, env=env, timeout=HANG_GUARD_S
    )
