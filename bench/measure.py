"""Timing whole processes as a user runs them: wall time, CPU time, peak memory; medians.

Every figure runs its baseline and its candidate in the same loop, one after the other, so a
busy machine slows both alike; the median of the runs is reported (and the spread kept).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Sample:
    """One process: wall seconds, CPU seconds (user + system), peak resident memory, exit."""

    wall: float
    cpu: float
    rss_mb: float
    code: int
    out: str = field(default="", repr=False)


def run(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None, ok: Sequence[int] = (0,)
) -> Sample:
    """Run one process to its end; its own rusage (children it waited for excluded)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    out = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in ok:
        raise SystemExit(f"bench: {' '.join(argv)} exited {process.returncode}:\n{out[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return Sample(wall, cpu, usage.ru_maxrss / 1024, process.returncode, out)


def probed(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None, ok: Sequence[int] = (0,)
) -> Sample:
    """`run`, the command started by a small launcher (bench/peak.py) that measures it: its
    wall and CPU, and its peak resident memory without the bench's own (which `run`'s child
    inherits)."""
    with tempfile.NamedTemporaryFile("r", suffix=".peak") as probe:
        done = run([sys.executable, str(ROOT / "bench/peak.py"), probe.name, *argv], cwd, env, ok)
        peak_kib, cpu, wall = probe.read().split()
    return Sample(float(wall), float(cpu), int(peak_kib) / 1024, done.code, done.out)


def peak_mb(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None, ok: Sequence[int] = (0,)
) -> float:
    """Peak resident memory of one process, in MB, without the bench's own (`probed`)."""
    return probed(argv, cwd, env, ok).rss_mb


def corpus_cli(*args: str) -> list[str]:
    """`corpus ARGS` as a fresh process of this checkout."""
    return [sys.executable, "-m", "corpus_tool", *args]


def interleaved(repeat: int, steps: Mapping[str, Callable[[], Sample]]) -> dict[str, list[Sample]]:
    """Each step once per round, in order, `repeat` rounds: baseline and candidate side by side.

    (A `run` sample's rss_mb counts what the process inherited from the bench at fork: an
    upper bound; a `probed` one's is the command's own.)"""
    samples: dict[str, list[Sample]] = {name: [] for name in steps}
    for _ in range(repeat):
        for name, step in steps.items():
            samples[name].append(step())
    return samples


def median(samples: Sequence[Sample], what: str = "wall") -> float:
    return float(statistics.median(getattr(s, what) for s in samples))


def spread(samples: Sequence[Sample], what: str = "wall") -> list[float]:
    return sorted(round(getattr(s, what), 3) for s in samples)
