"""Run a command and write its peak resident memory (KiB) to a file: `python -m bench`'s probe.

    python bench/peak.py OUT_FILE COMMAND [ARGS...]

A process's peak counts what it inherited at fork, so a command started straight from the
bench (which holds its generated corpora) would report at least the bench's own size. This
small process starts it instead.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    out, argv = sys.argv[1], sys.argv[2:]
    pid = os.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    _, status, usage = os.wait4(pid, 0)
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(str(usage.ru_maxrss))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
