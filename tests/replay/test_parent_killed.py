"""`kill -9` of the grading process (a CI job killed, an OOM kill): nothing it started lives on.

The worker notices its parent is gone even while the agent is blocked in a case, and takes its
process group (the agent's own children) and its scratch directory with it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import processes
from tests.conftest import TEST_KEY
from tests.replay.conftest import copy_corpus

BLOCKER = """
import json, os, subprocess, sys, time

def run(case_input, rt):
    try:  # a child of the agent's own (refused where the fence forbids processes)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]).pid
    except Exception:
        child = None
    marks = {{"worker": os.getpid(), "child": child, "tmp": os.environ["TMPDIR"]}}
    with open({marks!r}, "w") as out:
        json.dump(marks, out)
    time.sleep(600)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_replay_killed_leaves_no_worker_agent_child_or_scratch_behind(tmp_path: Path) -> None:
    marks = tmp_path / "marks.json"
    corpus = copy_corpus(tmp_path, "blocker:run")
    (corpus / "blocker.py").write_text(BLOCKER.format(marks=str(marks)), encoding="utf-8")
    env = {**os.environ, "CORPUS_REDACTION_KEY": TEST_KEY}
    argv = [sys.executable, "-m", "corpus_tool", "-C", str(corpus), "replay", "refund-success"]
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: dict[str, object] = {}
    try:
        deadline = time.monotonic() + 60
        while not seen and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
            if marks.is_file() and marks.read_text():
                seen = json.loads(marks.read_text())
        assert seen, "the agent never started"
        process.kill()  # kill -9: no finally, no cleanup in the grading process
        process.wait()
        pids = [int(str(p)) for p in (seen["worker"], seen["child"]) if p is not None]
        assert [p for p in pids if not processes.gone(p)] == [], "outlived the grading process"
        # in a PID namespace the pids the agent saw are not the host's: find them by TMPDIR
        assert _gone_with(f"TMPDIR={seen['tmp']}"), "outlived the grading process"
        scratch = Path(str(seen["tmp"])).parent
        assert not scratch.exists(), f"{scratch} left behind"
    finally:
        process.kill()
        for pid in [seen.get("worker"), seen.get("child")]:
            if pid is not None and processes.alive(int(str(pid))):
                os.kill(int(str(pid)), 9)
        for pid in _with_env(f"TMPDIR={seen.get('tmp')}"):
            os.kill(pid, 9)


def _with_env(entry: str) -> list[int]:
    """The host's processes whose environment holds `entry` (the worker's, the agent's)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and entry.encode() in (proc / "environ").read_bytes().split(
                b"\0"
            ):
                found.append(int(proc.name))
        except OSError:
            pass
    return found


def _gone_with(entry: str) -> bool:
    deadline = time.monotonic() + processes.GRACE_S
    while _with_env(entry) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _with_env(entry)
