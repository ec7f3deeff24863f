"""One JSON object read incrementally: its keys parsed whole, one list's items one at a time.

`corpus add` of a native incident of hundreds of thousands of events cannot hold the parsed
file: `json.loads` alone makes about six times the file's size of Python objects. This reader
reads the file in chunks (hashing them as it goes), parses each top-level value with the
standard decoder's `raw_decode`, and for the one key named (`events`) yields the list's items
one at a time, each parsed with the same decoder, so every value is the one `json.loads` gives
(`files.parse_json`'s mending of lone surrogates and its depth limit included).

Anything the reader does not take on (a syntax error, a key given twice, a value not a list)
raises `NotStreamed`: the caller then reads the file whole, whose parse gives the error
`parse_json` gives, in its words, or the document.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from corpus_tool.errors import InputError
from corpus_tool.io import files

CHUNK = 1 << 20
_AHEAD = 64  # characters read past a value: a number cut at a chunk's end parses as a shorter one
_SPACE = re.compile(r"[ \t\n\r]*")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_DECODER = json.JSONDecoder()


class NotStreamed(Exception):
    """The file is not one the reader takes on; read it whole (its parse decides)."""


class StreamedObject:
    """A JSON file holding one object, read once from start to end.

    Entered, it has read the keys before the list under `key` (`fields`, `before`);
    `items()` yields the list's values; when it is exhausted, `fields` holds every other key
    in the file's order and `sha256` is the file's hash.
    """

    _handle: BinaryIO

    def __init__(self, path: Path, key: str, limit: int | None = None):
        self.path, self.key = path, key
        self.limit = files.input_limit() if limit is None else limit
        self.fields: dict[str, Any] = {}
        self.before: tuple[str, ...] = ()
        self.size = 0
        self._hash = hashlib.sha256()
        self._decode = codecs.getincrementaldecoder("utf-8")("strict").decode
        self._buf, self._pos, self._eof = "", 0, False

    @property
    def sha256(self) -> str:
        return self._hash.hexdigest()

    def __enter__(self) -> StreamedObject:
        """Open the file and read it up to the list's first item (`fields`: the keys before)."""
        files.check_input(self.path, self.limit)
        try:
            self._handle = open(self.path, "rb")
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror or err}", self.path) from None
        try:
            self._guarded(self._head)
        except BaseException:
            self._handle.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()

    def items(self) -> Iterator[Any]:
        """The list's items, in order; then the rest of the object is read into `fields`."""
        items = self._list()
        while True:
            try:
                item = self._guarded(lambda: next(items))
            except StopIteration:
                break
            yield item
        self._guarded(self._tail)

    def _guarded(self, step: Any) -> Any:
        try:
            return step()
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror or err}", self.path) from None
        except (UnicodeDecodeError, RecursionError, ValueError) as err:
            raise NotStreamed(str(err)) from None

    def _head(self) -> None:
        self._expect("{")
        if self._peek() == "}":
            raise NotStreamed("no keys")
        while True:
            name = self._name()
            if name == self.key:
                if self._peek() != "[":
                    raise NotStreamed(f"`{self.key}` is not a list")
                break
            self.fields[name] = self._value(1)
            if self._close("}"):
                raise NotStreamed(f"no `{self.key}` list")
        self.before = tuple(self.fields)

    def _tail(self) -> None:
        while not self._close("}"):
            name = self._name()
            if name == self.key:
                raise NotStreamed(f"`{self.key}` given twice")
            self.fields[name] = self._value(1)
        self._end()

    def _name(self) -> str:
        """A key and its `:`; a key given twice is refused (json.loads keeps the last)."""
        name = self._value(0)
        if not isinstance(name, str) or name in self.fields:
            raise NotStreamed("a key that is not a string, or one given twice")
        self._expect(":")
        return name

    def _list(self) -> Iterator[Any]:
        self._expect("[")
        if self._peek() == "]":
            self._pos += 1
            return
        while True:
            yield self._value(2)
            if self._close("]"):
                return

    def _close(self, bracket: str) -> bool:
        """`,` (consumed, False) or the bracket (consumed, True); anything else is refused."""
        got = self._peek()
        if got == bracket:
            self._pos += 1
            return True
        if got != ",":
            raise NotStreamed(f"expected , or {bracket}")
        self._pos += 1
        return False

    def _value(self, depth: int) -> Any:
        """The next value, at `depth` below the top (for the depth limit)."""
        self._peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError:
                if self._eof:
                    raise NotStreamed("not valid JSON") from None
                # a value longer than what is read: read as much again, so a value of N
                # chunks is decoded from the start about log N times, not N times
                self._fill(len(self._buf) - self._pos)
                continue
            if end + _AHEAD > len(self._buf) and not self._eof:
                self._fill()  # `7e` of `7e-05`, `1.` of `1.5`: a number may go on
                continue
            break
        buf, start = self._buf, self._pos  # the value's text, looked at where it is: no copy
        self._pos = end
        if _SURROGATE_ESCAPE.search(buf, start, end):
            value = files.mend_surrogates(value)
        if isinstance(value, (dict, list)) and _may_nest(buf, start, end, files.MAX_DEPTH - depth):
            try:
                files.check_depth(value, self.path, depth=depth)
            except InputError as err:  # the whole file's parse says it (or what comes first)
                raise NotStreamed(str(err)) from None
        return value

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            raise NotStreamed(f"expected {char}")
        self._pos += 1

    def _peek(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            self._pos = _SPACE.match(self._buf, self._pos).end()  # type: ignore[union-attr]
            if self._pos < len(self._buf) or self._eof:
                return self._buf[self._pos : self._pos + 1]
            self._fill()

    def _end(self) -> None:
        if self._peek() != "":
            raise NotStreamed("extra data")

    def _fill(self, at_least: int = 0) -> None:
        raw = self._handle.read(max(CHUNK, min(at_least, self.limit - self.size + 1)))
        self.size += len(raw)
        if self.size > self.limit:
            raise files.too_big(self.path, "more than that", self.limit)
        self._hash.update(raw)
        self._eof = not raw
        self._buf = self._buf[self._pos :] + self._decode(raw, final=self._eof)
        self._pos = 0


def _may_nest(text: str, start: int, end: int, levels: int) -> bool:
    """Whether a value written as `text[start:end]` may nest `levels` deep: not with fewer
    brackets."""
    return text.count("{", start, end) + text.count("[", start, end) >= levels
