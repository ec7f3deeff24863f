"""Run a command and write what it used to a file: `python -m bench`'s probe.

    python bench/peak.py OUT_FILE COMMAND [ARGS...]

writes `PEAK_KIB CPU_S WALL_S`: the command's peak resident memory, its CPU seconds (user and
system, its own and its waited-for children's) and the wall seconds from its fork to its end.
A process's peak counts what it inherited at fork, and Python starts a child with vfork, which
shares the parent's memory until the exec: a command started straight from the bench (which
holds its generated corpora, and once generated a 300,000-event incident in 3 GB) would report
at least the bench's own peak. This small process starts it instead.
"""

from __future__ import annotations

import os
import sys
import time


def main() -> int:
    out, argv = sys.argv[1], sys.argv[2:]
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(f"{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime} {wall}")
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
