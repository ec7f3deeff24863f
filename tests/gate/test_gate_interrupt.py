"""An interrupted gate leaves the user's checkout as it was and no worktree behind."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.gate.gate_repo import BLOCKING_PRICING, PRICING, ShopRepo

WAIT_S = 120  # far above what replaying one case takes: only a hung gate reaches it


def _wait_for(path: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the agent never started"
        time.sleep(0.1)


def _running_with(marker: Path) -> list[int]:
    """Processes whose environment names this test's marker: the gate and its workers."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"GATE_MARKER={marker}".encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def _base_blocks(shop: ShopRepo) -> None:
    """main's agent blocks inside the replay until the gate is stopped; branch `change`, its
    agent fine, is checked out."""
    shop.write("shop/pricing.py", BLOCKING_PRICING)
    shop.commit("main: an agent that blocks")
    shop.git("checkout", "-q", "-b", "change")
    shop.write("shop/pricing.py", PRICING)
    shop.commit("change")


def _ours(pid: int) -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob(f"corpus-gate-{pid}-*"))


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_gate_interrupted_mid_replay_removes_its_worktree(
    shop: ShopRepo, stop: signal.Signals
) -> None:
    _base_blocks(shop)
    shop.write("wip.txt", "uncommitted work\n")
    before = shop.state()
    marker = Path(shop.env["GATE_MARKER"])
    process = subprocess.Popen(
        shop.argv("gate", "--base", "main", "--timeout", "600"),
        cwd=shop.root,
        env=shop.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(marker, process)
        during = shop.git("worktree", "list", "--porcelain")
        assert f"corpus-gate-{process.pid}-" in during, "the base side runs in a worktree"
        assert _ours(process.pid)
        process.send_signal(stop)
        out, err = process.communicate(timeout=WAIT_S)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, out + err
    assert "corpus gate: interrupted" in err
    assert shop.state() == before
    assert _ours(process.pid) == []
    assert _running_with(marker) == [], "the replay worker was stopped too"


def test_gate_sweeps_a_worktree_left_by_a_killed_gate(shop: ShopRepo) -> None:
    _base_blocks(shop)
    marker = Path(shop.env["GATE_MARKER"])
    process = subprocess.Popen(
        shop.argv("gate", "--base", "main", "--timeout", "600"),
        cwd=shop.root,
        env=shop.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_for(marker, process)  # type: ignore[arg-type]
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # no finally runs: the worktree stays
        process.wait()
        for pid in _running_with(marker):  # the worker, in a session of its own, lives on
            os.kill(pid, signal.SIGKILL)
    assert f"corpus-gate-{process.pid}-" in shop.git("worktree", "list", "--porcelain")
    marker.unlink()
    # the next run on a base that does not block sweeps the leftover
    shop.git("branch", "-q", "-f", "calm", "change")
    ran = shop.corpus("gate", "--base", "calm")
    assert ran.code == 0, ran.err
    assert f"corpus-gate-{process.pid}-" not in shop.git("worktree", "list", "--porcelain")
    assert _ours(process.pid) == []
