"""`corpus minimize` stopped part way through its search: Ctrl-C, or `kill -9`.

The agent itself says when the search is under way: it replays normally a few times (the whole
case, then candidates), then writes its pid to a file outside the corpus and blocks. The test
stops `corpus minimize` right then, so the stop lands mid-search on purpose, not by timing luck.
Ground truth is the case's files as they were before, and what the worker's pid says of it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from corpus_tool.store.faults import KILLED
from tests import processes
from tests.conftest import TEST_KEY, Cli
from tests.minimize.padded import padded_case
from tests.recording import seqs_of

WAIT_S = 120  # far above a few replays of one case: only a hung run reaches it
CASE = "refund-padded"
BLOCKS_ON_ITS_THIRD_RUN = """
    import os
    import time
    from pathlib import Path

    from examples.refund_agent.agent import run as real

    RUNS, BLOCKED = Path({runs!r}), Path({blocked!r})


    def run(case_input, rt):
        with RUNS.open("a") as runs:
            runs.write("run\\n")
        if RUNS.read_text().count("run") == 3:
            BLOCKED.write_text(str(os.getpid()))
            time.sleep(10**6)
        return real(case_input, rt)
"""


@pytest.fixture
def blocking(tmp_path: Path, cli: Cli) -> tuple[Path, Path, set[int]]:
    """The padded case, its agent blocking on its third run; the file its pid is written to;
    the seqs the failure needs (the recorded script's: all but the padding, the side effect
    the replayed agent emits itself, and the final event)."""
    corpus, incident = padded_case(tmp_path, cli)
    padding = {*seqs_of(incident, type="llm_request")[:2], *seqs_of(incident, tool="check_refund")}
    padding.add(seqs_of(incident, tool="get_order")[0])
    padding.update(seqs_of(incident, type="side_effect"))
    failing = set(seqs_of(incident)) - padding - {max(seqs_of(incident))}
    blocked = tmp_path / "blocked-pid"
    source = BLOCKS_ON_ITS_THIRD_RUN.format(runs=str(tmp_path / "runs"), blocked=str(blocked))
    (corpus / "agent_under_test.py").write_text(textwrap.dedent(source), encoding="utf-8")
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("examples.refund_agent.agent:run", "agent_under_test:run"))
    return corpus, blocked, failing


def _start(corpus: Path) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "corpus_tool", "-C", str(corpus), "minimize", CASE]
    env = {**os.environ, "CORPUS_REDACTION_KEY": TEST_KEY}
    argv += ["--until", "tools.args", "--timeout", "600"]  # the block is never a timeout
    return subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _blocked_pid(blocked: Path, process: subprocess.Popen[str]) -> int:
    """The pid of the worker whose agent is blocked, once it is."""
    deadline = time.monotonic() + WAIT_S
    while not blocked.is_file() or not blocked.read_text():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the agent never blocked"
        time.sleep(0.1)
    return int(blocked.read_text())


def _case_files(corpus: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted((corpus / "cases").rglob("*")) if p.is_file()}


def _stop(process: subprocess.Popen[str], pid: int | None) -> None:
    """Whatever the test saw: no process of it outlives it."""
    if process.poll() is None:
        process.kill()
        process.wait()
    if pid is not None and processes.alive(pid):
        os.kill(pid, signal.SIGKILL)


def test_minimize_interrupted_mid_search_keeps_the_case_and_stops_its_worker(
    blocking: tuple[Path, Path, set[int]], cli: Cli
) -> None:
    corpus, blocked, _ = blocking
    before = _case_files(corpus)
    process, pid = _start(corpus), None
    try:
        pid = _blocked_pid(blocked, process)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WAIT_S)
        assert process.returncode == 130, out + err
        assert "interrupted" in err and "Traceback" not in err
        assert processes.gone(pid), "the blocked worker outlived an interrupted minimize"
    finally:
        _stop(process, pid)
    assert _case_files(corpus) == before  # not a byte written, no lock or temporary file left
    assert cli("-C", corpus, "validate").code == 0


def _killed_mid_search(corpus: Path, blocked: Path) -> bool:
    """Run minimize, `kill -9` it once its agent blocks; whether that worker then still lived."""
    process, pid = _start(corpus), None
    try:
        pid = _blocked_pid(blocked, process)
        process.kill()  # kill -9: no finally, no cleanup
        process.wait()
        return not processes.gone(pid)
    finally:
        _stop(process, pid)


def test_minimize_killed_mid_search_keeps_the_case_and_the_next_run_works(
    blocking: tuple[Path, Path, set[int]], cli: Cli
) -> None:
    corpus, blocked, failing = blocking
    before = _case_files(corpus)
    _killed_mid_search(corpus, blocked)
    assert _case_files(corpus) == before
    ran = cli("-C", corpus, "minimize", CASE, "--until", "tools.args")  # unblocked now
    assert ran.code == 0, ran.err
    trace = yaml.safe_load((corpus / "cases" / CASE / "trace.yaml").read_text(encoding="utf-8"))
    kept = {e["seq"] for e in trace["events"]}
    assert kept == failing  # as on a run never stopped: the padding went, the failure stayed
    assert cli("-C", corpus, "validate").code == 0


def test_minimize_killed_mid_search_leaves_no_worker_behind(
    blocking: tuple[Path, Path, set[int]],
) -> None:
    corpus, blocked, _ = blocking
    assert not _killed_mid_search(corpus, blocked), "the agent's worker outlived minimize"


def _case_dir_files(case: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(case.iterdir())}


def test_minimize_killed_after_each_step_of_its_write_loses_nothing(
    tmp_path: Path, cli: Cli
) -> None:
    """Fault injection at every step of the write (lock, copy, trace written, each rename):
    the next minimize finishes or undoes it and ends where an uninterrupted run ends."""
    corpus, _ = padded_case(tmp_path, cli)
    (corpus / "cases" / CASE / "notes.md").write_text("a reviewer's notes\n", encoding="utf-8")
    clean = tmp_path / "clean"
    shutil.copytree(corpus, clean)
    assert cli("-C", clean, "minimize", CASE, "--until", "tools.args").code == 0
    done = _case_dir_files(clean / "cases" / CASE)
    assert done["notes.md"] == b"a reviewer's notes\n"
    step = 0
    while True:
        step += 1
        work = tmp_path / f"k{step}"
        shutil.copytree(corpus, work)
        env = {**os.environ, "CORPUS_REDACTION_KEY": TEST_KEY, "CORPUS_KILL_AFTER_STEP": str(step)}
        argv = [sys.executable, "-m", "corpus_tool", "-C", str(work), "minimize", CASE]
        ran = subprocess.run(
            [*argv, "--until", "tools.args"], env=env, capture_output=True, text=True, timeout=300
        )
        if ran.returncode == 0:
            break
        assert ran.returncode == KILLED and "killed after step" in ran.stderr, ran.stderr
        again = cli("-C", work, "minimize", CASE, "--until", "tools.args")
        assert again.code == 0, (step, again.err)
        assert _case_dir_files(work / "cases" / CASE) == done, step
        assert [p.name for p in (work / "cases").iterdir() if p.name.startswith(".")] == []
        assert cli("-C", work, "validate").code == 0, step
    assert step > 4  # the lock, the copy, the new trace, the renames: each was a kill point
