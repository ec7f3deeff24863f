"""JSON lines (one JSON value per line), as session streams and span exporters write them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError


def head(raw: bytes, limit: int = 50) -> list[Any] | None:
    """The first `limit` values of JSON-lines bytes, or None when they are not JSON lines."""
    values: list[Any] = []
    for line in raw.splitlines():
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except (ValueError, RecursionError):
            return None
        if len(values) >= limit:
            break
    return values or None


def read(raw: bytes, path: Path) -> list[Any]:
    """Every value of a JSON-lines file; a line that is not JSON is refused by its number."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text; is this a binary file?", path) from None
    out: list[Any] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except (ValueError, RecursionError) as err:
            raise InputError(
                f"line {number} is not JSON ({err}); each line of a JSON-lines export holds "
                "one JSON value: re-export the file",
                path,
            ) from None
    return out
