"""One replay worker process, as the grading process sees it: start, talk, time out, stop.

Everything that can go wrong with the process becomes `Failed(Fault)`: no answer before the
deadline (the stack is sampled first: SIGUSR1 makes the worker's faulthandler dump it), the
process gone (its exit status or signal named), a reply that is not the protocol. The process
runs in its own session, so stopping it kills what it started too (unless that left the group).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import corpus_tool
from corpus_tool.replay.workers import wire
from corpus_tool.replay.workers.stacks import main_thread_stack, where_stuck
from corpus_tool.replay.workers.worker import BOOT, MAX_OUTPUT

STACK_WAIT_S = 1.0
"""How long a worker past its limit gets to dump its stack before it is killed."""
EXIT_WAIT_S = 2.0
"""How long a worker that closed its pipe gets to exit before it is killed."""


@dataclass(frozen=True)
class Fault:
    """Why a case has no (complete) replay: one line, and the worker's stack when there is one."""

    reason: str
    stack: tuple[str, ...] = ()


class Failed(Exception):
    """The worker failed; it has been stopped. `output` is what it printed in the case."""

    def __init__(self, fault: Fault, output: str = "") -> None:
        super().__init__(fault.reason)
        self.fault, self.output = fault, output


@dataclass(frozen=True)
class Launch:
    """How to start a worker: its setup (paths filled in per worker), environment, time limit."""

    setup: wire.WorkerSetup
    env: Mapping[str, str]
    timeout_s: float


class Worker:
    """A worker process: spawned at once; `begin` sends its setup, the first reply is `ready`."""

    def __init__(self, launch: Launch) -> None:
        self.timeout_s = launch.timeout_s
        self.scratch = Path(tempfile.mkdtemp(prefix="corpus-worker-"))
        work, tmp = self.scratch / "work", self.scratch / "tmp"
        work.mkdir()
        tmp.mkdir()
        self.capture = self.scratch / "output"
        self.setup = replace(launch.setup, capture=self.capture, stack=self.scratch / "stack")
        env = {**launch.env, "HOME": str(work), "TMPDIR": str(tmp)}
        package_dir = str(Path(corpus_tool.__file__).resolve().parent.parent)
        with open(self.capture, "ab") as capture:
            self.process = subprocess.Popen(
                [sys.executable, "-u", "-c", BOOT, package_dir],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=capture,
                cwd=work,
                env=env,
                bufsize=0,
                start_new_session=os.name == "posix",  # its own group: killed with its children
            )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests, self.replies = self.process.stdin.fileno(), self.process.stdout.fileno()

    def begin(self) -> None:
        """Send the setup; the worker answers `ready` (or `import_error`) once it imported."""
        self.send(wire.encode_setup(self.setup))

    def send(self, request: bytes) -> None:
        """One message to the worker; Failed when it is gone."""
        try:
            wire.write_frame(self.requests, request)
        except wire.Closed:
            raise self._gone() from None

    def send_many(self, requests: list[bytes]) -> None:
        """Several messages in one write (the worker wakes once for them); Failed when gone."""
        try:
            wire.write_frames(self.requests, requests)
        except wire.Closed:
            raise self._gone() from None

    def reply(self, deadline: float, starting: bool = False) -> dict[str, Any]:
        """The worker's next message, checked; Failed (worker stopped) when there is none."""
        try:
            reply = wire.decode_reply(wire.read_frame(self.replies, deadline=deadline))
        except wire.Late:
            raise self._late(starting) from None
        except wire.Closed:
            raise self._gone() from None
        except (wire.WireError, OSError) as err:
            raise self.failed(f"the worker sent an unreadable reply: {err}") from None
        if not isinstance(reply.get("output", ""), str) or not _is_text(reply.get("fault")):
            raise self.failed("the worker sent a malformed reply")
        return reply

    def failed(self, reason: str) -> Failed:
        """Stop the worker, keeping what it printed, for a failure found by the caller."""
        output = self._stop_with_output()
        return Failed(Fault(reason), output)

    def _late(self, starting: bool) -> Failed:
        stack = self._sample_stack()
        output = self._stop_with_output()
        where = where_stuck(stack)
        reason = f"did not finish within {self.timeout_s:g} s (replay.timeout_s or --timeout)"
        if starting:
            limit = max(self.timeout_s, START_FLOOR_S)
            reason = (
                f"did not start within {limit:g} s (replay.timeout_s, at least {START_FLOOR_S:g})"
            )
        reason += f"; stuck at {where}" if where else "; no stack could be taken"
        return Failed(Fault(reason + "; the worker was stopped", tuple(stack)), output)

    def _gone(self) -> Failed:
        try:
            code = self.process.wait(EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            return self.failed("the worker closed its pipe to the grading process")
        output = self._stop_with_output()
        return Failed(Fault(f"the worker {_exit_text(code)}"), output)

    def _sample_stack(self) -> list[str]:
        """Ask the worker for its stack (SIGUSR1: faulthandler) and read the main thread's."""
        path = self.setup.stack
        with contextlib.suppress(OSError, AttributeError):
            before = path.stat().st_size
            os.kill(self.process.pid, signal.SIGUSR1)
            _wait_for_growth(path, before, time.monotonic() + STACK_WAIT_S)
        try:
            return main_thread_stack(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return []

    def _stop_with_output(self) -> str:
        output = read_output(self.capture)
        self.stop()
        return output

    def stop(self) -> None:
        """End the worker (and anything it started in its process group); remove its files."""
        with contextlib.suppress(OSError):
            self.process.stdin.close()  # type: ignore[union-attr]
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(0.5 if self.process.poll() is None else 0)
        _kill_group(self.process)
        with contextlib.suppress(OSError):
            self.process.stdout.close()  # type: ignore[union-attr]
        shutil.rmtree(self.scratch, ignore_errors=True)


START_FLOOR_S = 10.0
"""The least time a worker gets to start (interpreter, sandbox, the agent's import), whatever
the per-case limit: `--timeout 0.5` limits a case, and a loaded CI machine starting a worker
in more than that is not an agent hanging at import."""


def _wait_for_growth(path: Path, before: int, deadline: float) -> None:
    """Until the file has grown and then stayed the same size for a moment (a whole dump)."""
    last = before
    while time.monotonic() < deadline:
        time.sleep(0.05)
        size = path.stat().st_size
        if before < size == last:
            return
        last = size


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    if os.name == "posix":
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(EXIT_WAIT_S)


def _exit_text(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code} (os._exit or a crash in agent code)"


def _is_text(value: Any) -> bool:
    return value is None or isinstance(value, str)


def read_output(path: Path) -> str:
    """The tail of a worker's capture file (what the agent printed in the case that failed)."""
    try:
        with open(path, "rb") as file:
            size = file.seek(0, os.SEEK_END)
            file.seek(max(0, size - MAX_OUTPUT))
            data = file.read()
    except OSError:
        return ""
    cut = f"[... {size - MAX_OUTPUT:,} bytes cut ...]\n" if size > MAX_OUTPUT else ""
    return cut + data.decode("utf-8", "backslashreplace")
