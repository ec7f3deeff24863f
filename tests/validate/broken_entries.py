"""The ways a cache file written as a header line and a body can be broken: by a bad disk, a
killed write, another version of the tool, a careless hand or another user; each cache that
reads such files is fed every one (tests/validate/test_document_cache.py, test_file_stats.py).
"""

from __future__ import annotations

import os
from pathlib import Path


def _flip_last_byte(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))


def _other_format(path: Path) -> None:
    header, _, body = path.read_bytes().partition(b"\n")
    words = header.split(b" ")
    words[2] = b"0"  # "corpus-tool KIND FORMAT ...": the format's number
    path.write_bytes(b" ".join(words) + b"\n" + body)


def _group_writable(path: Path) -> None:
    path.chmod(0o666)


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)  # reading it would block until a writer came


def _directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


BREAKAGES = {
    "truncated": lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
    "flipped byte": _flip_last_byte,
    "empty": lambda path: path.write_bytes(b""),
    "no header": lambda path: path.write_bytes(path.read_bytes().partition(b"\n")[2]),
    "another format": _other_format,
    "writable by others": _group_writable,
    "a FIFO": _fifo,
    "a directory": _directory,
}
