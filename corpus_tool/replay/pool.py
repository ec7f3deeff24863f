"""Replay workers as seen from the grading process: start, feed, time, stop, replace.

A `Pool` runs jobs (one case, `runs` times) on up to `size` worker processes. Each worker
imports the agent once and replays many cases; a job stays on one worker for all its runs. A
worker that misbehaves never takes the run down with it: every way it can fail (past the time
limit, exited, killed, an unreadable reply, a fault it reports itself) ends its job with a
`Fault`, the worker is stopped (its whole process group), and the next job gets a fresh one.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import corpus_tool
from corpus_tool.replay import wire
from corpus_tool.replay.stacks import main_thread_stack, where_stuck
from corpus_tool.replay.worker import BOOT, MAX_OUTPUT

STACK_WAIT_S = 1.0
"""How long a worker past its limit gets to dump its stack before it is killed."""
EXIT_WAIT_S = 2.0
"""How long a worker that closed its pipe gets to exit before it is killed."""


@dataclass(frozen=True)
class Job:
    """One case for a worker: the encoded case, and how many times to replay it."""

    request: bytes
    runs: int = 1


@dataclass(frozen=True)
class Fault:
    """Why a job has no (complete) replay: one line, and the worker's stack when there is one."""

    reason: str
    stack: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What a job came back with: a reply per finished run, the agent's output, any fault."""

    replies: tuple[dict[str, Any], ...]
    output: str
    fault: Fault | None
    duration_ms: float


class StartError(Exception):
    """The agent cannot be imported in a worker (its message is the one-line reason)."""


class _Failed(Exception):
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
    """One worker process, from the parent's side."""

    def __init__(self, launch: Launch) -> None:
        self.timeout_s = launch.timeout_s
        self.scratch = Path(tempfile.mkdtemp(prefix="corpus-worker-"))
        work = self.scratch / "work"
        (self.scratch / "tmp").mkdir()
        work.mkdir()
        self.capture, stack = self.scratch / "output", self.scratch / "stack"
        self.setup = replace(launch.setup, capture=self.capture, stack=stack)
        env = {**launch.env, "HOME": str(work), "TMPDIR": str(self.scratch / "tmp")}
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
        self._requests, self._replies = self.process.stdin.fileno(), self.process.stdout.fileno()
        self.isolation = ""

    def handshake(self) -> None:
        """Send the setup and wait for the agent's import; StartError when it fails."""
        try:
            wire.write_frame(self._requests, wire.encode_setup(self.setup))
            reply = self._reply(time.monotonic() + self.timeout_s)
        except _Failed as failed:
            where = self.setup.corpus_root / "corpus.yaml"
            raise StartError(_at_import(where, failed.fault.reason, failed.output)) from None
        if reply["kind"] == "import_error":
            self.stop()
            raise StartError(str(reply.get("error")))
        if reply["kind"] != "ready":
            self.stop()
            raise StartError("the worker answered its setup with something else")
        self.isolation = str(reply.get("isolation"))

    def exchange(self, request: bytes) -> dict[str, Any]:
        """One run of a case: its reply, or _Failed (the worker is stopped then)."""
        try:
            wire.write_frame(self._requests, request)
        except wire.Closed:
            raise self._gone() from None
        return self._reply(time.monotonic() + self.timeout_s)

    def _reply(self, deadline: float) -> dict[str, Any]:
        try:
            reply = wire.decode_reply(wire.read_frame(self._replies, deadline=deadline))
        except wire.Late:
            raise self._late() from None
        except wire.Closed:
            raise self._gone() from None
        except (wire.WireError, OSError) as err:
            output = self._stop_with_output()
            raise _Failed(Fault(f"the worker sent an unreadable reply: {err}"), output) from None
        if not isinstance(reply.get("output", ""), str) or not _is_text(reply.get("fault")):
            output = self._stop_with_output()
            raise _Failed(Fault("the worker sent a malformed reply"), output)
        return reply

    def _late(self) -> _Failed:
        stack = self._sample_stack()
        output = self._stop_with_output()
        where = where_stuck(stack)
        reason = f"did not finish within {self.timeout_s:g} s (replay.timeout_s or --timeout)"
        reason += f"; stuck at {where}" if where else "; no stack could be taken"
        return _Failed(Fault(reason + "; the worker was stopped", tuple(stack)), output)

    def _gone(self) -> _Failed:
        try:
            code = self.process.wait(EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            code = None
        output = self._stop_with_output()
        if code is None:
            return _Failed(Fault("the worker closed its pipe to the grading process"), output)
        return _Failed(Fault(f"the worker {_exit_text(code)}"), output)

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


def _at_import(config: Path, reason: str, output: str) -> str:
    """One line: why the worker never became ready, with the last line it printed."""
    tail = output.strip().splitlines()[-1:]
    said = f" (its last output: {tail[0][:200]})" if tail else ""
    return f"{config}: agent.entrypoint: importing it in a replay worker failed: {reason}{said}"


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


class _Slot:
    """A place for one worker; the worker is started on first use and after each failure."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool
        self.worker: Worker | None = None

    def execute(self, job: Job) -> Outcome:
        started = time.perf_counter()
        replies: list[dict[str, Any]] = []
        output: list[str] = []
        for _ in range(max(1, job.runs)):
            try:
                reply = self._ready().exchange(job.request)
            except _Failed as failed:
                self.worker = None
                return _outcome(replies, [*output, failed.output], failed.fault, started)
            replies.append(reply)
            output.append(reply.get("output") or "")
            if reply.get("fault"):
                self.retire()
                fault = Fault(f"the agent broke its worker: {reply['fault']}")
                return _outcome(replies, output, fault, started)
        return _outcome(replies, output, None, started)

    def _ready(self) -> Worker:
        if self.worker is None:
            self.worker = self._pool.start_worker()
        return self.worker

    def retire(self) -> None:
        if self.worker is not None:
            self.worker.stop()
            self.worker = None


def _outcome(
    replies: list[dict[str, Any]], output: list[str], fault: Fault | None, started: float
) -> Outcome:
    duration = round((time.perf_counter() - started) * 1000, 1)
    return Outcome(tuple(replies), "".join(output), fault, duration)


class Pool:
    """Up to `size` workers for one corpus; use as a context manager, which stops them all."""

    def __init__(self, launch: Launch, size: int = 1, start: Callable[[Launch], Worker] = Worker):
        self.launch, self.size, self._start = launch, max(1, size), start
        self._slots: queue.SimpleQueue[_Slot] = queue.SimpleQueue()
        self._all = [_Slot(self) for _ in range(self.size)]
        for slot in self._all:
            self._slots.put(slot)
        self._lock = threading.Lock()
        self._ever_ready = False
        self._closed = False
        self.isolation = ""

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start_worker(self) -> Worker:
        """A new worker, imported and ready; StartError while none has ever been ready."""
        if self._closed:
            raise _Failed(Fault("the run was stopped before this case could run"))
        worker = self._start(self.launch)
        try:
            worker.handshake()
        except StartError as err:
            if not self._ever_ready:
                raise
            raise _Failed(Fault(str(err))) from None
        with self._lock:
            self._ever_ready, self.isolation = True, worker.isolation
        return worker

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, Outcome]]:
        """Run every job; yields (index, outcome) as each finishes."""
        if not jobs:
            return
        executor = ThreadPoolExecutor(min(self.size, len(jobs)), "corpus-worker-io")
        try:
            futures: dict[Future[Outcome], int] = {
                executor.submit(self._on_a_slot, job): index for index, job in enumerate(jobs)
            }
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            executor.shutdown(wait=False, cancel_futures=True)

    def _on_a_slot(self, job: Job) -> Outcome:
        slot = self._slots.get()
        try:
            return slot.execute(job)
        except _Failed as failed:  # the pool closed, or a replacement worker cannot start
            return Outcome((), failed.output, failed.fault, 0.0)
        finally:
            self._slots.put(slot)

    def close(self) -> None:
        """Stop every worker."""
        self._closed = True
        for slot in self._all:
            slot.retire()
