"""`corpus` runs in child processes that race each other, or die right after a chosen step.

Children fork from a forkserver that imported corpus-tool once, so a run costs a fork rather
than an interpreter start (hundreds of runs stay quick on 2 cores), and the server has no
threads to fork from. Each child is still its own process, with its own descriptors, locks and
exit status, and runs the `main()` the console script runs. A fault is injected the way the
tool offers it (CORPUS_KILL_AFTER_STEP): the child `os._exit`s right after that step.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus_tool.store.faults import ENV as KILL_ENV
from corpus_tool.store.faults import KILLED

__all__ = ["KILLED", "Ran", "run", "run_together"]

_CONTEXT: Any = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["tests.warm_corpus_tool", "tests.processes"])
TIMEOUT = 120


@dataclass(frozen=True)
class Ran:
    """What one child run left: its exit status, stdout and stderr."""

    code: int | None
    out: str
    err: str


def run(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    logs: Path,
    kill_after: int | None = None,
) -> Ran:
    """One `corpus` run in a child process (killed right after step `kill_after`, if given)."""
    extra = dict(env) | ({KILL_ENV: str(kill_after)} if kill_after else {})
    return run_together([argv], cwd, extra, logs)[0]


def run_together(
    argvs: Sequence[Sequence[str]], cwd: Path, env: Mapping[str, str], logs: Path
) -> list[Ran]:
    """Start one child per argv, release them at once, wait for all."""
    logs.mkdir(parents=True, exist_ok=True)
    start = _CONTEXT.Event()
    children = []
    for n, argv in enumerate(argvs):
        paths = (str(logs / f"{n}.out"), str(logs / f"{n}.err"))
        child = _CONTEXT.Process(
            target=_child, args=([str(a) for a in argv], str(cwd), dict(env), paths, start)
        )
        child.start()
        children.append(child)
    start.set()
    for child in children:
        child.join(TIMEOUT)
        if child.is_alive():  # a hang is a failure, not a stuck suite
            child.kill()
            child.join()
    return [_ran(child.exitcode, logs, n) for n, child in enumerate(children)]


def _ran(code: int | None, logs: Path, n: int) -> Ran:
    out = (logs / f"{n}.out").read_text(encoding="utf-8")
    err = (logs / f"{n}.err").read_text(encoding="utf-8")
    return Ran(code, out, err)


def _child(
    argv: list[str], cwd: str, env: dict[str, str], paths: tuple[str, str], start: Any
) -> None:
    os.chdir(cwd)
    os.environ.pop(KILL_ENV, None)
    os.environ.update(env)
    sys.stdout = open(paths[0], "w", encoding="utf-8")  # noqa: SIM115 - kept until _exit
    sys.stderr = open(paths[1], "w", encoding="utf-8")  # noqa: SIM115
    os.dup2(sys.stderr.fileno(), 2)  # a killed step writes its note on fd 2
    start.wait()
    from corpus_tool.cli import main

    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


GRACE_S = 10.0
"""How long a process may take to go (far above what a stopped worker takes to exit)."""


def alive(pid: int) -> bool:
    """Whether a Python process lives (a zombie, or a pid reused by another program, does not;
    reads /proc: Linux)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z" and sys.executable.encode() in cmdline


def gone(pid: int) -> bool:
    """Whether the process is gone within GRACE_S."""
    deadline = time.monotonic() + GRACE_S
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(pid)
