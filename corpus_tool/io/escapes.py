"""Data shown to a person with its control characters as visible escapes.

Case ids, tool names, paths, error messages and agent output come from files and agents the
tool does not control. Written raw, an ESC starts a terminal sequence (a screen clear, an OSC
title or clipboard write, a cursor move), a CR overwrites the line, a bidi override reorders
it, and a newline in an id starts a line of the data's choosing (`gate: PASSED`). Here they
become `\\x1b`, `\\r`, `\\u202e`, `\\n`. Backslashes are left alone, so plain text never
changes and escaping twice changes nothing more. Everything past ASCII is written `\\uXXXX`,
which is also a JSON string escape: JSON printed through `Escaping` stays valid and means
the same (json.dumps escapes C0 itself, but not DEL, C1, U+2028 or U+2029).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TextIO

_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_IN_TEXT = re.compile(f"[{_CONTROLS}]")
"""What multi-line text may not hold: every control but newline and tab, and bidi overrides."""
_IN_LINE = re.compile(f"[\t\n{_CONTROLS}]")
"""What one line, or one field on a line, may not hold: the same, newline and tab too."""


_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x7F else f"\\u{code:04x}"


def line(value: object) -> str:
    """`str(value)` safe on one line of a report: every control character escaped."""
    return _IN_LINE.sub(_shown, str(value))


def text(value: str) -> str:
    """Text safe for a terminal that keeps its lines: newlines and tabs stay, others escaped."""
    return _IN_TEXT.sub(_shown, value)


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""What XML 1.0 cannot hold at all, not even as a character reference."""


def xml(document: str) -> str:
    """A serialized XML document whose characters XML 1.0 forbids (an agent's ESC, a lone
    surrogate) are shown as escapes: ElementTree writes them raw, and a CI server's parser then
    refuses the whole JUnit file."""
    return _NOT_XML.sub(_shown, document)


def lines(rows: Iterable[str]) -> str:
    """Report lines as text: each escaped with `line`, each ended by a newline."""
    return "".join(line(row) + "\n" for row in rows)


class Escaping:
    """A text stream writing through `text`: what the CLI hands commands as stdout, stderr."""

    def __init__(self, raw: TextIO):
        self.raw = raw
        self.encoding = raw.encoding

    def write(self, data: str) -> int:
        """Write `data` with its control characters escaped; its length, as streams answer."""
        self.raw.write(text(data))
        return len(data)

    def writelines(self, rows: Iterable[str]) -> None:
        """Write each of `rows` as `write` does."""
        for row in rows:
            self.write(row)

    def flush(self) -> None:
        """Flush the stream below."""
        self.raw.flush()

    def isatty(self) -> bool:
        """Whether the stream below is a terminal."""
        return self.raw.isatty()

    def fileno(self) -> int:
        """The descriptor of the stream below."""
        return self.raw.fileno()

    def __getattr__(self, name: str) -> Any:
        """Anything else a stream answers (`closed`, `errors`, `name`): the stream below's."""
        return getattr(self.raw, name)


def raw(stream: TextIO) -> TextIO:
    """The stream below an `Escaping` one (for a progress bar's own terminal codes)."""
    return stream.raw if isinstance(stream, Escaping) else stream
