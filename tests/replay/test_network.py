"""No replayed case reaches the network or a real tool."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.replay.workers.network import NetworkBlocked, no_network
from tests.replay.conftest import CORPUS, ReplayCase


def test_guard_blocks_a_real_tool_client_during_replay(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    from examples.refund_agent.tools import refund

    def leaky(case_input: dict[str, Any], rt: Any) -> Any:
        order = refund.get_order({"order_id": "O-1001"})  # the production client, not rt.tool
        return {"status": "succeeded", "output": str(order)}

    run = replay_case("refund-success", leaky)
    assert run.divergence is not None
    assert run.divergence.kind == "Network"
    assert "orders.internal" in run.divergence.message
    assert run.terminal.status == "unknown"


def test_guard_blocks_raw_sockets_even_when_the_agent_catches_everything(
    replay_case: ReplayCase,
) -> None:
    def stubborn(case_input: dict[str, Any], rt: Any) -> Any:
        with contextlib.suppress(BaseException):  # even this cannot hide the attempt
            socket.create_connection(("192.0.2.1", 443), timeout=0.1)
        return {"status": "succeeded", "output": "ok"}

    run = replay_case("refund-success", stubborn, "lenient")
    assert run.divergence is not None
    assert run.divergence.kind == "Network"
    assert "192.0.2.1:443" in run.divergence.message


def test_guard_is_scoped_to_the_block() -> None:
    with no_network() as attempts, pytest.raises(NetworkBlocked):
        socket.getaddrinfo("example.invalid", 80)
    assert attempts.targets == ["example.invalid:80"]
    left, right = socket.socketpair()  # local sockets stay usable, inside and outside
    left.close()
    right.close()
    # outside the block: allowed again (no resolver in a sandbox is fine: no NetworkBlocked)
    with contextlib.suppress(OSError):
        socket.getaddrinfo("localhost", 80)


def test_check_of_every_example_case_reaches_no_real_tool_nor_host(tmp_path: Path) -> None:
    # the agent runs in replay workers: a real `corpus check`, and the results it writes
    results = tmp_path / "results.json"
    argv = ["-C", str(CORPUS), "check", "--results", str(results), "--mode", "lenient"]
    done = subprocess.run(
        [sys.executable, "-m", "corpus_tool", *argv], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, "refund-wrong-unit still fails (wrong amount), nothing else"
    cases = json.loads(results.read_text(encoding="utf-8"))["cases"]
    assert [c["case"] for c in cases if c["verdict"] == "failed"] == ["refund-wrong-unit"]
    assert all((c["divergence"] or {}).get("kind") != "Network" for c in cases)
    assert "Network" not in done.stdout
