"""Reading the stack dump of a worker that ran past its time limit (faulthandler's format)."""

from __future__ import annotations

import re
from pathlib import PurePath

_HEADER = re.compile(r"(?:Current thread|Thread) (0x[0-9a-fA-F]+)")
_FRAME = re.compile(r'\s*File "(?P<file>.*)", line (?P<line>\d+) in (?P<func>\S+)')


def main_thread_stack(dump: str) -> list[str]:
    """The main thread's part of a dump headed by `main 0x<id>` (all of it if unsure)."""
    lines = dump.splitlines()
    main = _main_id(lines[0]) if lines else None
    blocks: list[list[str]] = []
    for line in lines[1:]:
        if _HEADER.match(line):
            blocks.append([line])
        elif blocks and line.strip():
            blocks[-1].append(line)
    for block in blocks:
        found = _HEADER.match(block[0])
        if found and main is not None and int(found.group(1), 16) == main:
            return block
    return [line for block in blocks for line in block]


def _main_id(first: str) -> int | None:
    head, _, number = first.partition(" ")
    try:
        return int(number, 16) if head == "main" else None
    except ValueError:
        return None


def where_stuck(stack: list[str]) -> str | None:
    """`file.py:LINE in function` of the innermost frame (file name only: no machine paths)."""
    for line in stack:
        frame = _FRAME.match(line)
        if frame:
            return f"{PurePath(frame['file']).name}:{frame['line']} in {frame['func']}"
    return None
