"""Counting YAML parses: which case files this process's YAML readers were given, however asked.

Every document parse constructs a `files.Loader`; `affected`'s trace scan walks
`yaml.parse`'s event stream instead. Both are wrapped, and what each is given is compared with
the bytes of the case files under a directory (as they are when the counter is read), so a
count names `case/kind`, never a function of the code under test.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.io import files


class Parses:
    """What was parsed since the last `clear()`: a Counter of `case/kind` of the case files
    under `cases`, the bytes matched when `counts()` is asked (a file edited after its parse
    is then no longer matched: ask before editing)."""

    def __init__(self, cases: Path) -> None:
        self.cases = cases
        self.given: list[bytes] = []

    def clear(self) -> None:
        self.given.clear()

    def counts(self) -> Counter[str]:
        by_bytes: dict[bytes, list[str]] = {}
        for path in self.cases.glob("*/*.yaml"):
            by_bytes.setdefault(path.read_bytes(), []).append(f"{path.parent.name}/{path.stem}")
        seen: Counter[str] = Counter()
        for data in self.given:
            for name in by_bytes.get(data, []):
                seen[name] += 1
        return seen


def counting(monkeypatch: pytest.MonkeyPatch, cases: Path) -> Parses:
    """Wrap the loader and the event parser; the parses of files under `cases` are counted."""
    parses = Parses(cases)
    real_init = files.Loader.__init__
    real_parse = yaml.parse

    def as_bytes(stream: Any) -> bytes:
        return stream.encode("utf-8") if isinstance(stream, str) else bytes(stream)

    def loader(self: Any, stream: Any) -> None:
        parses.given.append(as_bytes(stream))
        real_init(self, stream)

    def parse(stream: Any, *args: Any, **kwargs: Any) -> Any:
        parses.given.append(as_bytes(stream))
        return real_parse(stream, *args, **kwargs)

    monkeypatch.setattr(files.Loader, "__init__", loader)
    monkeypatch.setattr(yaml, "parse", parse)
    return parses
