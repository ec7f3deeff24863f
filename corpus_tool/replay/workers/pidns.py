"""A worker in its own PID namespace: a relay outside it, an init inside, the worker under that.

The process the grading process started (`relay`) made the namespace; its first child is the
namespace's init (pid 1), and the init's child is the worker (pid 2), so that the worker is an
ordinary process an agent can still kill (signals to an init are ignored unless handled).

- The relay forwards SIGUSR1 (the stack dump) and SIGTERM to the init, which forwards them to
  the worker; it ends the way the worker ended (same exit status, same signal), so the grading
  process sees the worker's end. It watches its own parent: once the grading process is gone
  (killed -9) it removes the worker's scratch directory and kills its process group.
- The init has PR_SET_PDEATHSIG: it dies with the relay. It reaps whatever is reparented to it
  and, when the worker has ended, exits: the kernel then kills every process left in the
  namespace, `setsid` and double-forked daemons included. It also answers the seccomp filter's
  notifications (`lockdown.Listener`).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import shutil
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

SIGNALS = {signal.SIGCHLD, signal.SIGUSR1, signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
FORWARDED = (signal.SIGUSR1, signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
PARENT_POLL_S = 0.5
PR_SET_PDEATHSIG = 1
STATUS = struct.Struct("=i")


@dataclass(frozen=True)
class Pipes:
    """Between the three processes: the worker's wait status (init -> relay), the relay's
    liveness (its end closes when it dies), the refusal notes (init -> worker)."""

    status: tuple[int, int]
    alive: tuple[int, int]
    notes: tuple[int, int]

    @classmethod
    def make(cls) -> Pipes:
        notes = os.pipe()
        os.set_blocking(notes[0], False)
        os.set_blocking(notes[1], False)
        return cls(os.pipe(), os.pipe(), notes)

    def keep(self, *wanted: int) -> None:
        """Close every end but `wanted`."""
        for fd in (*self.status, *self.alive, *self.notes):
            if fd not in wanted:
                with contextlib.suppress(OSError):
                    os.close(fd)


def block_signals() -> None:
    """Until each process has its handlers (a SIGUSR1 meanwhile would kill it)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)


def unblock_signals() -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)


def relay(
    init: int, parent: int, scratch: Path, pipes: Pipes, private: tuple[int, ...]
) -> NoReturn:
    """The process outside the namespace, until the init ends (never returns)."""
    try:
        _close(private)
        pipes.keep(pipes.status[0], pipes.alive[1])

        def reaped(*_: Any) -> None:
            pid, status = os.waitpid(init, os.WNOHANG)
            if pid:
                _end_like(_worker_status(pipes.status[0], status))

        _handle(reaped, lambda sig, _: _send(init, sig))
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != parent:  # the grading process is gone (killed -9)
                shutil.rmtree(scratch, ignore_errors=True)
                with contextlib.suppress(OSError):
                    os.killpg(os.getpgid(0), signal.SIGKILL)
                os._exit(1)
    finally:
        os._exit(1)


def init(
    worker: int,
    listen: tuple[int, Callable[[], None]] | None,
    pipes: Pipes,
    private: tuple[int, ...],
) -> NoReturn:
    """The namespace's pid 1, until the worker ends (never returns)."""
    try:
        _close(private)
        pipes.keep(pipes.status[1], pipes.notes[1])

        def reaped(*_: Any) -> None:
            while True:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    os._exit(0)
                if pid == 0:
                    return
                if pid == worker:
                    with contextlib.suppress(OSError):
                        os.write(pipes.status[1], STATUS.pack(status))
                    os._exit(0)  # the kernel kills whatever is left in the namespace

        _handle(reaped, lambda sig, _: _send(worker, sig))
        while True:
            if listen is None:
                signal.pause()
            elif select.select([listen[0]], [], [])[0]:
                listen[1]()
    finally:
        os._exit(1)


def die_with_relay(pipes: Pipes) -> None:
    """In the init: PR_SET_PDEATHSIG, then make sure the relay did not die before it was set."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if select.select([pipes.alive[0]], [], [], 0)[0]:  # its end closed: it is gone
        os._exit(1)


def _handle(reaped: Callable[..., None], forward: Callable[[int, Any], None]) -> None:
    signal.signal(signal.SIGCHLD, reaped)
    for sig in FORWARDED:
        signal.signal(sig, forward)
    unblock_signals()


def _send(pid: int, sig: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, sig)


def _close(fds: tuple[int, ...]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _worker_status(fd: int, init_status: int) -> int:
    """The worker's wait status as the init passed it on, else the init's own (killed)."""
    with contextlib.suppress(OSError):
        data = os.read(fd, STATUS.size)
        if len(data) == STATUS.size:
            return int(STATUS.unpack(data)[0])
    return init_status


def _end_like(status: int) -> NoReturn:
    """Exit with the worker's status, or die of the signal that killed it."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):
            if sig not in (signal.SIGKILL, signal.SIGSTOP):
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
            os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
