"""JSON lines (one JSON value per line), as session streams and span exporters write them.

Values may also follow one another over several lines (the OpenTelemetry SDK's console
exporter writes each span as indented JSON): what is read is a sequence of JSON values
separated by whitespace.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError

_DECODER = json.JSONDecoder()


class _Broken(ValueError):
    """A value that is not JSON, at the line where it starts."""

    def __init__(self, line: int, why: str) -> None:
        super().__init__(f"line {line} is not JSON ({why})")
        self.line = line


def _values(text: str) -> Iterator[tuple[int, Any]]:
    """(offset, value) of each JSON value in `text`; `_Broken` at the first that is not."""
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return
        try:
            value, end = _DECODER.raw_decode(text, at)
        except json.JSONDecodeError as err:
            raise _Broken(text.count("\n", 0, at) + 1, err.msg) from None
        yield at, value
        at = end


def head(raw: bytes, limit: int = 50) -> list[Any] | None:
    """The first `limit` values of the bytes (their first 4 MB), or None when they are not
    JSON values."""
    out: list[Any] = []
    try:
        for _, value in _values(raw[: 4 << 20].decode("utf-8", errors="replace")):
            out.append(value)
            if len(out) >= limit:
                break
    except (ValueError, RecursionError):
        if len(out) < 2:  # a value cut at 4 MB ends the head; broken bytes are no JSON lines
            return None
    return out or None


def read(raw: bytes, path: Path) -> list[Any]:
    """Every value of the file; one that is not JSON is refused with its line number."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text; is this a binary file?", path) from None
    try:
        return [value for _, value in _values(text)]
    except _Broken as err:
        raise InputError(
            f"{err}; each line of a JSON-lines export holds one JSON value: re-export the file",
            path,
        ) from None
    except RecursionError:
        raise InputError("a value is nested too deeply to read", path) from None
