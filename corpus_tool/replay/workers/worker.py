"""A replay worker: imports the agent once, then replays the cases the parent sends, one a time.

Started by `pool.py` as `python -u -c BOOT DIR`. Its stdin and stdout are the pipes to the
parent; the worker moves them to private descriptors at once, so fd 0 reads nothing and fds 1
and 2 both write to the capture file: whatever the agent prints (or a crash dumps) is the
case's captured output, never part of the report. Before any agent code runs the worker isolates
itself (`isolation.py`), installs the `fence`, and arms a stack dump on SIGUSR1 so that a case
past its time limit can say where it was stuck.

After each case the worker reports what the agent left behind that makes the process unfit for
the next case: a fork, threads still running, processes still running (in its PID namespace),
closed standard streams, refused operations (the fence's, and the system calls the sandbox's
seccomp filter refused in any process of the worker). The parent then makes the case an error
and replaces the worker. With a PID namespace the process the parent started is a relay, and
the worker runs two processes below it (`pidns.py`).
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import shutil
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus_tool.errors import CorpusError
from corpus_tool.replay.doubles.case import doubled, for_case
from corpus_tool.replay.engine import AgentContractError, CaseSpec, replay
from corpus_tool.replay.live import Link
from corpus_tool.replay.workers import wire
from corpus_tool.replay.workers.fence import Fence
from corpus_tool.replay.workers.isolation import Isolation, Protection, isolate
from corpus_tool.replay.workers.loader import Agent, entrypoint
from corpus_tool.replay.workers.model_link import PipeModel
from corpus_tool.store.corpus import Corpus

BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); import corpus_tool; "
    "sys.path.remove(sys.argv[1]); sys.path.append(sys.argv[1]); "
    "from corpus_tool.replay.workers.worker import main; main()"
)
"""The worker's program. `corpus_tool` is imported from the grading process's own package
directory, first on sys.path for that one import: another copy that the interpreter's path
finds first (an editable install of another checkout, an older release in site-packages) would
speak another version of the wire. The directory then goes last, where it was: the agent's
imports resolve as they would without it."""
THREAD_GRACE_S = 0.2
"""How long threads the agent started may take to finish after it returned."""
MAX_OUTPUT = 64 * 1024
"""Captured output kept per case (the tail: the end is where a failure shows)."""


class Channel:
    """The worker's two pipes to the parent, on descriptors agent code has no reason to touch."""

    def __init__(self) -> None:
        self.requests, self.replies = os.dup(0), os.dup(1)  # dup'ed fds are not inheritable
        self.pending: deque[bytes] = deque()  # cases queued while a live model call waited
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)  # stdout joins stderr in the capture file

    def send(self, message: dict[str, Any]) -> None:
        try:
            payload = wire.encode_reply(message)
        except (ValueError, TypeError, RecursionError) as err:  # what the agent put in events
            error = f"the trajectory cannot be sent to the grading process ({type(err).__name__})"
            kept = {key: message.get(key) for key in ("output", "run")}
            payload = wire.encode_reply({"kind": "error", "error": error, **kept})
        wire.write_frame(self.replies, payload)

    def receive(self) -> bytes:
        return self.pending.popleft() if self.pending else self.read()

    def read(self) -> bytes:
        return wire.read_frame(self.requests, limit=1 << 62)

    def close(self) -> None:
        for fd in (self.requests, self.replies):
            with contextlib.suppress(OSError):
                os.close(fd)


class Forks:
    """Counts forks of this process; a forked child never talks to the parent."""

    def __init__(self, channel: Channel) -> None:
        self.count = 0
        self.in_child = False
        self._channel = channel
        os.register_at_fork(before=self._before, after_in_child=self._child)

    def _before(self) -> None:
        self.count += 1

    def _child(self) -> None:
        self.in_child = True
        self._channel.close()


class Capture:
    """The file fds 1 and 2 write to; emptied before each case, read after it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.identity = _identity(2)
        self.streams = (sys.stdout, sys.stderr)

    def reset(self) -> None:
        with contextlib.suppress(OSError):
            os.truncate(self.path, 0)
        sys.stdout, sys.stderr = self.streams  # an agent that swapped them last time

    def read(self) -> str:
        try:
            if os.stat(self.path).st_size == 0:  # the usual case: nothing printed, nothing opened
                return ""
            with open(self.path, "rb") as file:
                file.seek(0, os.SEEK_END)
                size = file.tell()
                file.seek(max(0, size - MAX_OUTPUT))
                data = file.read(MAX_OUTPUT)
        except OSError:
            return ""
        cut = f"[... {size - MAX_OUTPUT:,} bytes cut ...]\n" if size > MAX_OUTPUT else ""
        return cut + data.decode("utf-8", "backslashreplace")

    def damage(self) -> list[str]:
        """What the agent did to the standard streams that the next case would suffer from."""
        broken = [f"fd {fd}" for fd in (1, 2) if _identity(fd) != self.identity]
        broken += [s.name for s in self.streams if s.closed]
        if not broken:
            return []
        return [f"it closed or replaced the worker's {' and '.join(broken)}"]


def _identity(fd: int) -> tuple[int, int] | None:
    try:
        info = os.fstat(fd)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def main() -> None:
    """The worker process: set up, import the agent, serve cases until the parent hangs up."""
    parent = os.getppid()  # before anything can block: the parent that must outlive us
    channel = Channel()
    setup = wire.decode_setup(channel.receive())
    scratch = setup.capture.parent
    if setup.namespaces:
        private = (channel.requests, channel.replies)
        isolation = isolate(
            Protection(setup.readonly, setup.hidden, scratch, parent, private, setup.seccomp)
        )
    else:
        isolation = Isolation(False, False, "off")
    if not isolation.pid:  # in a PID namespace the relay outside watches the parent
        _die_with_parent(parent, scratch)  # after unshare: it needs one thread
    stack_file = _stack_on_signal(setup.stack)
    fence = Fence(setup.readonly, not isolation.network, setup.hidden)
    fence.install()
    forks = Forks(channel)
    held = contextlib.ExitStack()  # never closed: the import lives as long as the worker
    try:
        agent = _import(setup, held)
    except CorpusError as err:
        channel.send({"kind": "import_error", "error": str(err)})
        os._exit(0)
    channel.send({"kind": "ready", "isolation": isolation.describe()})
    capture = Capture(setup.capture)
    guards = Guards(fence, forks, capture, isolation)
    serve(channel, lambda spec, run: run_one(agent, spec, guards, PipeModel(channel, run)), scratch)
    stack_file.close()  # not reached: serve ends the process
    held.close()


def _import(setup: wire.WorkerSetup, held: contextlib.ExitStack) -> Agent:
    """The entrypoint, imported for the life of the worker.

    `held` must outlive every case: were it collected, closing the import's context would take
    the repository off sys.path and forget the modules imported from it (a virtualenv inside
    the repository included), and the agent's later imports would load second copies of its
    libraries (two `AIMessage` classes, and pydantic refusing the one it did not expect).
    """
    corpus = Corpus(setup.corpus_root, setup.config)
    return doubled(held.enter_context(entrypoint(corpus)), corpus.config, corpus.config_path)


PARENT_POLL_S = 0.5


def _die_with_parent(parent: int, scratch: Path) -> None:
    """A watchdog thread: once the parent is gone without closing our pipe (killed -9, or its
    CI job killed), remove this worker's scratch directory and kill its process group (the
    worker and whatever the agent started), even while agent code is blocked in a case."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        shutil.rmtree(scratch, ignore_errors=True)
        if hasattr(os, "killpg"):
            with contextlib.suppress(OSError):
                os.killpg(os.getpgid(0), signal.SIGKILL)
        os._exit(1)

    threading.Thread(target=watch, name="corpus-parent-watch", daemon=True).start()


def _stack_on_signal(path: Path) -> Any:
    """On SIGUSR1, dump every thread's stack to `path`, headed by the main thread's id."""
    file = open(path, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    file.write(f"main 0x{threading.main_thread().ident or 0:x}\n")
    file.flush()
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, file=file, all_threads=True)
    return file


def serve(channel: Channel, run: Callable[[CaseSpec, int], dict[str, Any]], scratch: Path) -> None:
    """Answer each case the parent sends; exit when it closes the pipe (the parent is done, or
    was killed: the scratch directory goes either way)."""
    while True:
        try:
            number, request = wire.decode_run(channel.receive())
        except wire.Closed:
            shutil.rmtree(scratch, ignore_errors=True)
            os._exit(0)  # threads an agent left behind must not keep the worker alive
        try:
            spec = request.spec()
        except (KeyError, TypeError, ValueError) as err:  # the parent validated it: a bug
            error = f"the case does not fit the trace model: {err!r:.200}"
            channel.send({"kind": "error", "error": error, "output": "", "run": number})
            continue
        channel.send({**run(spec, number), "run": number})


@dataclass(frozen=True)
class Guards:
    """What watches a case: the fence, the fork counter, the capture, the sandbox."""

    fence: Fence
    forks: Forks
    capture: Capture
    isolation: Isolation


def run_one(
    agent: Agent, spec: CaseSpec, guards: Guards, link: Link | None = None
) -> dict[str, Any]:
    """Replay one case; the reply carries the replay (or why none), the output, any fault."""
    forks, capture, isolation = guards.forks, guards.capture, guards.isolation
    capture.reset()
    before, forked = set(threading.enumerate()), forks.count
    processes = isolation.processes()
    isolation.refused()  # notes of an earlier case's leftovers are not this case's
    with guards.fence.armed() as refused:
        body = _replayed(agent, spec, link)
    if forks.in_child:  # the agent forked and this is the child, back from the agent
        os._exit(0)
    faults = [f"it forked the worker ({forks.count - forked}x)"] if forks.count > forked else []
    faults += _threads_left(before) + isolation.left_running(processes) + capture.damage()
    faults += [f"it tried {r}" for r in [*refused, *isolation.refused()]]
    body["fault"] = "; ".join(faults) if faults else None
    body["output"] = capture.read()
    return body


def _replayed(agent: Agent, spec: CaseSpec, link: Link | None) -> dict[str, Any]:
    try:
        replayed = replay(for_case(agent, spec.trace), spec, link)  # with its MCP/tool doubles
        return {"kind": "replay", "replay": wire.replay_dict(replayed)}
    except AgentContractError as err:
        return {"kind": "error", "error": str(err)}
    except KeyboardInterrupt:
        return {"kind": "error", "error": "the agent raised KeyboardInterrupt"}


def _threads_left(before: set[threading.Thread]) -> list[str]:
    """Threads the case started that are still running after a short grace."""
    deadline = time.monotonic() + THREAD_GRACE_S
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    for thread in left:
        thread.join(max(0.0, deadline - time.monotonic()))
    left = [t for t in left if t.is_alive()]
    if not left:
        return []
    names = ", ".join(t.name for t in left[:3])
    return [f"it left {len(left)} thread(s) running ({names})"]
