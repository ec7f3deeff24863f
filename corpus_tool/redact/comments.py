"""YAML comments: invisible to a parsed document, so `validate` scans them separately.

A person editing expected.yaml or a waiver may paste a value into a comment; the parsed data
never shows it, but git keeps it forever. The YAML scanner's tokens cover every scalar and
indicator, so what lies between tokens is whitespace and comments.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from typing import Any

import yaml

from corpus_tool.io.yaml_build import ScalarExtent

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BEFORE_COMMENT = frozenset(" \t\n")  # what may precede a `#` that starts a comment


def yaml_comments(text: str, spans: Sequence[ScalarExtent] | None = None) -> list[tuple[int, str]]:
    """(1-based line, comment text) of every comment; [] when the text does not scan as YAML.

    `spans` (from the loader: where the scalars holding `#` are written) settle the common
    case without scanning the YAML again: when every `#` that could start a comment lies
    inside a scalar's text, there is no comment.
    """
    if next(_candidates(text), None) is None:  # a comment starts a line or follows a blank
        return []
    if spans is not None and _all_in_text(text, spans):
        return []
    found: list[tuple[int, str]] = []
    pos = 0
    try:
        for token in yaml.scan(text, Loader=_Loader):
            start = token.start_mark.index
            if start > pos:
                found.extend(_comments_between(text, pos, start))
            pos = max(pos, token.end_mark.index)
    except yaml.YAMLError:
        return found
    found.extend(_comments_between(text, pos, len(text)))
    return found


def _all_in_text(text: str, spans: Sequence[ScalarExtent]) -> bool:
    """Every candidate `#` lies in a scalar's text (a block scalar's header line is not text)."""
    if text.startswith("\ufeff") or "\ufffd" in text:  # the loader counts from past a BOM
        return False
    starts, ends = [], []
    for span in sorted(spans):
        start = span.start
        if span.block:
            newline = text.find("\n", start, span.end)
            start = span.end if newline == -1 else newline
        starts.append(start)
        ends.append(span.end)
    for at in _candidates(text):
        i = bisect.bisect_right(starts, at) - 1
        if i < 0 or at >= ends[i]:
            return False
    return True


def _candidates(text: str) -> Iterator[int]:
    """Where a `#` could start a comment: at the start of a line or after a space or tab.
    str.find skips to each `#` at C speed (a regex tried its alternatives at every character)."""
    at = text.find("#")
    while at != -1:
        if at == 0 or text[at - 1] in _BEFORE_COMMENT:
            yield at
        at = text.find("#", at + 1)


def _comments_between(text: str, low: int, high: int) -> Iterator[tuple[int, str]]:
    at = text.find("#", low, high)
    while at != -1:
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        yield text.count("\n", 0, at) + 1, text[at:end]
        at = text.find("#", end, high) if end < high else -1
