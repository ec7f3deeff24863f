"""A reader for the layout corpus-tool's own writer gives, or a step aside for anything else.

Corpus files are almost always written by `files.dump_yaml` (block style, two-space indents,
a sequence in a mapping not indented, `- key: value` for a mapping in a sequence, `{}` and
`[]` for empty ones, each scalar plain, single-quoted, double-quoted or a literal block as
libyaml's emitter decides). libyaml's composer makes a Python node and marks for every
scalar before any value is built; this reader takes the lines of that layout directly, one
match or two a line, and resolves each plain scalar with the loader's own resolver and
constructors (YAML 1.1, timestamps kept as strings), so its values are the loader's.

It is not a second YAML dialect: anything it is not certain of — a comment, a blank or
tab-indented line, a flow collection other than `{}` and `[]`, an anchor, alias or tag, a
folded (`>`) scalar, an empty value, a key written twice (or two spellings of one key),
a document marker, a character the YAML reader refuses or reads as a line break, deep
nesting — raises `OffLayout`, and the caller parses the text with libyaml as before, which
gives the value, or the error and its line, that it always gave. The suite compares the two
on every example file, on documents the writer makes of random values and on hostile ones.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

from yaml.nodes import ScalarNode

from corpus_tool.io.yaml_build import STR, ScalarExtent

_TAG = "tag:yaml.org,2002:"
_INT, _FLOAT, _BOOL, _NULL = _TAG + "int", _TAG + "float", _TAG + "bool", _TAG + "null"
MAX_DEPTH = 150  # deeper documents go to libyaml, which knows the real limit's message


class OffLayout(Exception):
    """The text is not (certainly) in the writer's layout: parse it with libyaml."""


# What libyaml reads as the character it is and the writer writes unescaped; anything else
# (a tab, a carriage return, NEL, U+2028/9, a byte-order mark, a control character) is left
# to libyaml, which refuses it, reads it as a line break or as whitespace.
_ODD = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
# a key: plain (no indicator first; `-`, `?` or `:` only before a character that is no space),
# or quoted; then `:` and a space or the end of the line
_KEY = re.compile(
    r"(?!---|\.\.\.)(?:"
    r"""((?:[^-?:,\[\]{}#&*!|>'"%@` ]|[-?:](?! |$))[^\n]*?)"""
    r"|'((?:[^']|'')*)'"
    r'|"((?:[^"\\]|\\.)*)"'
    r"):(?: |$)"
)
_SINGLE_PART = re.compile(r"(?:[^']|'')*")  # single-quoted text up to its quote
_DOUBLE_PART = re.compile(
    r'(?:[^"\\]|\\.)*'
)  # double-quoted text up to its quote or a `\` at the end
_HEADER = re.compile(r"\|(?:([1-9])([-+]?)|([-+])([1-9]?))?")
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0abtnvfre \"/\\N_LP])")
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
    "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_NOT_PLAIN_START = frozenset(",[]{}#&*!|>'\"%@` ")


def read(text: str, resolve: Scalars) -> tuple[Any, list[ScalarExtent]]:
    """The document's value and the spans of its scalars holding a `#` (as yaml_build.build
    gives them), or OffLayout."""
    if not text.endswith("\n") or _ODD.search(text):
        raise OffLayout
    reader = _Reader(text, resolve)
    lines = reader.lines
    first = lines[0]
    if first.startswith((" ", "---", "...")):
        raise OffLayout
    value: Any
    if first.startswith("- "):
        value, end = reader.sequence(0, 0, 0)
    else:
        value, end = reader.mapping(0, 0, 0)
    if end != len(lines) - 1:
        raise OffLayout
    return value, reader.spans


_MISS = object()


_BLANK = 1 << 30  # the indentation a blank line is given: deeper than any, so no value's


class _Reader:
    def __init__(self, text: str, resolve: Scalars) -> None:
        self.lines = lines = text.split("\n")  # the last is the empty rest after the final break
        self.eof = len(lines) - 1
        # each line's indentation (a blank line's _BLANK; the end -1), worked out at once
        self.indents = [n if (n := len(x) - len(x.lstrip(" "))) < len(x) else _BLANK for x in lines]
        self.indents[-1] = -1
        self.resolve = resolve
        self.plain = resolve.lines
        self.spans: list[ScalarExtent] = []
        self._starts: list[int] | None = None

    def at(self, line: int, column: int) -> int:
        """The character index of a line and column."""
        if self._starts is None:
            self._starts = [0, *accumulate(len(x) + 1 for x in self.lines)]
        return self._starts[line] + column

    def mapping(self, i: int, col: int, depth: int) -> tuple[dict[Any, Any], int]:
        """The block mapping whose first key starts at line i, column col."""
        if depth > MAX_DEPTH:
            raise OffLayout
        out: dict[Any, Any] = {}
        lines, indents, plain_memo = self.lines, self.indents, self.plain
        while True:
            line = lines[i]
            match = _KEY.match(line, col)
            if match is None:
                raise OffLayout
            plain, single, double = match.groups()
            if plain is not None:
                if " #" in plain or plain[-1] == " ":
                    raise OffLayout
                key = self.plain_value(plain, i, col)
            elif single is not None:
                key = single.replace("''", "'") if "'" in single else single
                if "#" in single:
                    self.span(i, col, match.end(2) + 1 - col)
            else:
                key = _unescape(double)
                if "#" in double:
                    self.span(i, col, match.end(3) + 1 - col)
            at = match.end()
            if at - col > 1000:
                raise OffLayout  # libyaml's limit of a simple key
            if key in out:
                raise OffLayout  # a duplicate: the loader's error and its line
            if at == len(line):
                value, i = self.below(i, col, depth)
            elif line[at] in _NOT_PLAIN_START or indents[i + 1] > col:
                value, i = self.node(line, at, i, col, depth)
            else:  # the common case, a plain scalar on one line
                text = line[at:]
                value = plain_memo.get(text, _MISS)
                if value is _MISS or "#" in text:
                    value = self.plain_line(text, i, at)
                i += 1
            out[key] = value
            indent = indents[i]
            if indent < col:
                return out, i
            if indent > col or lines[i].startswith("- ", col):
                raise OffLayout

    def sequence(self, i: int, col: int, depth: int) -> tuple[list[Any], int]:
        """The block sequence whose first `- ` is at line i, column col."""
        if depth > MAX_DEPTH:
            raise OffLayout
        out: list[Any] = []
        lines, indents = self.lines, self.indents
        item = col + 2
        value: Any
        while True:
            line = lines[i]
            if len(line) <= item or line[item] == " ":
                raise OffLayout
            if line.startswith("- ", item):
                value, i = self.sequence(i, item, depth + 1)
            elif _KEY.match(line, item) is not None:
                value, i = self.mapping(i, item, depth + 1)
            else:
                value, i = self.node(line, item, i, col, depth)
            out.append(value)
            indent = indents[i]
            if indent < col:
                return out, i
            if indent > col:
                raise OffLayout
            if not lines[i].startswith("- ", col):
                return out, i  # a sequence not indented under its key: the key's mapping goes on

    def below(self, i: int, col: int, depth: int) -> tuple[Any, int]:
        """The value of a key at column col that ends line i: a collection on the lines below."""
        i += 1
        indent = self.indents[i]
        if indent >= col and indent != _BLANK and self.lines[i].startswith("- ", indent):
            return self.sequence(i, indent, depth + 1)
        if indent > col and indent != _BLANK:
            return self.mapping(i, indent, depth + 1)
        raise OffLayout  # an empty value (null), or a blank line: libyaml decides

    def node(self, line: str, at: int, i: int, parent: int, depth: int) -> tuple[Any, int]:
        """A scalar or an empty collection written from column `at` of line i, inside a
        collection at column `parent`."""
        first = line[at]
        if first == "'":
            return self.single(line, at, i, parent)
        if first == '"':
            return self.double(line, at, i, parent)
        if first == "|":
            return self.literal(line, at, i, parent)
        if first in _NOT_PLAIN_START:
            rest = line[at:]
            if rest == "{}":
                return {}, i + 1
            if rest == "[]":
                return [], i + 1
            raise OffLayout
        return self.plain_scalar(line, at, i, parent)

    def plain_scalar(self, line: str, at: int, i: int, parent: int) -> tuple[Any, int]:
        text = line[at:]
        indents = self.indents
        if indents[i + 1] <= parent:
            return self.plain_line(text, i, at), i + 1
        if _bad_plain(text):
            raise OffLayout
        parts, start_line = [text], i
        i += 1
        while indents[i] > parent:
            part = self.lines[i].lstrip(" ")
            if _bad_plain(part) or part[0] == "#":
                raise OffLayout
            parts.append(part)
            i += 1
        text = " ".join(parts)
        value = self.resolve(text)
        if "#" in text:
            end = self.at(i - 1, len(self.lines[i - 1]))
            self.spans.append(ScalarExtent(self.at(start_line, at), end, False))
        return value, i

    def plain_line(self, text: str, i: int, col: int) -> Any:
        """A plain scalar that is all of line i from col."""
        if _bad_plain(text) or (text[0] in "-?:" and (len(text) == 1 or text[1] == " ")):
            raise OffLayout
        value = self.plain_value(text, i, col)
        if len(text) <= 256:  # a text checked as a whole line's plain scalar, for the next time
            self.resolve.remember(self.plain, text, value)
        return value

    def plain_value(self, text: str, i: int, col: int) -> Any:
        """A one-line plain scalar's value (remembered: a trace repeats its keys and words)."""
        if "#" in text:
            self.span(i, col, len(text))
        return self.resolve(text)

    def span(self, i: int, col: int, length: int) -> None:
        start = self.at(i, col)
        self.spans.append(ScalarExtent(start, start + length, False))

    def single(self, line: str, at: int, i: int, parent: int) -> tuple[str, int]:
        start_line, part, start = i, line, at + 1
        parts = []
        while True:
            end = _end(_SINGLE_PART, part, start)
            if end < len(part):  # the closing quote
                if end + 1 != len(part):
                    raise OffLayout
                parts.append(part[start:end])
                break
            parts.append(part[start:])
            i += 1
            start = self.indents[i]
            if start <= parent:
                raise OffLayout
            part = self.lines[i]
        raw = parts[0] if len(parts) == 1 else _folded(parts)
        if "#" in raw:
            self.spans.append(
                ScalarExtent(self.at(start_line, at), self.at(i, len(self.lines[i])), False)
            )
        return (raw.replace("''", "'") if "'" in raw else raw), i + 1

    def double(self, line: str, at: int, i: int, parent: int) -> tuple[str, int]:
        parts, start_line, part, start = [], i, line, at + 1
        while True:
            end = _end(_DOUBLE_PART, part, start)
            if end < len(part) and part[end] == '"':
                if end + 1 != len(part):
                    raise OffLayout
                parts.append(part[start:end])
                break
            if end < len(part) - 1:
                raise OffLayout  # a lone `\` inside: libyaml's error
            parts.append(part[start:])
            i += 1
            part, start = self.lines[i], self.indents[i]
            if start <= parent:
                raise OffLayout
        raw = parts[0] if len(parts) == 1 else _folded_double(parts)
        if "#" in raw:
            self.spans.append(
                ScalarExtent(self.at(start_line, at), self.at(i, len(self.lines[i])), False)
            )
        return _unescape(raw), i + 1

    def literal(self, line: str, at: int, i: int, parent: int) -> tuple[str, int]:
        header = _HEADER.fullmatch(line, at)
        if header is None:
            raise OffLayout
        digit = header.group(1) or header.group(4)
        chomp = header.group(2) or header.group(3)
        lines, start_line = self.lines, i
        i += 1
        indent = parent + int(digit) if digit else self.indents[i]
        if indent <= parent or indent == _BLANK:
            raise OffLayout  # leading blank lines decide the indentation: libyaml's rules
        body: list[str] = []
        pad = " " * indent
        while i < self.eof:
            text = lines[i]
            if text and not text.startswith(pad):
                if text.strip(" ") == "":
                    raise OffLayout
                break
            if text.endswith(" "):
                raise OffLayout
            body.append(text[indent:])
            i += 1
        kept = len(body)
        while kept and not body[kept - 1]:
            kept -= 1
        if not kept:
            raise OffLayout
        value = "\n".join(body[:kept])
        if chomp == "+":
            value += "\n" * (len(body) - kept + 1)
        elif chomp != "-":
            value += "\n"
        if "#" in value:
            end = self.at(i, 0)  # libyaml ends a block at the start of the line after it
            self.spans.append(ScalarExtent(self.at(start_line, at), end, True))
        return value, i


def _is_entry(rest: str) -> bool:
    """Whether a sequence item written `rest` is a mapping's first entry (`key: ...`)."""
    match = _KEY.match(rest)
    return match is not None


def _end(pattern: re.Pattern[str], text: str, start: int) -> int:
    """Where a pattern that matches the empty string too stops matching, from `start`."""
    match = pattern.match(text, start)
    assert match is not None
    return match.end()


def _bad_plain(text: str) -> bool:
    """What a plain scalar here cannot hold (libyaml reads a key, a comment, or an end)."""
    return not text or ": " in text or " #" in text or text[-1] in ": "


def _folded(parts: list[str]) -> str:
    """Quoted text over several lines (each part stripped of its indentation) as YAML folds
    it: one line break a space, each blank line a line break."""
    out = [parts[0].rstrip(" ")]
    breaks = 0
    for part in parts[1:-1]:
        part = part.strip(" ")
        if not part:
            breaks += 1
            continue
        out.append("\n" * breaks if breaks else " ")
        out.append(part)
        breaks = 0
    out.append("\n" * breaks if breaks else " ")
    out.append(parts[-1])
    return "".join(out)


def _folded_double(parts: list[str]) -> str:
    """Double-quoted text over several lines: folded as `_folded`, except that a line ending
    in an escaping `\\` joins the next with nothing between them."""
    for part in parts[:-1]:
        if part.endswith(" ") or not part.strip(" "):
            raise OffLayout  # trailing or lone blanks around an escape: libyaml's rules
    out = [parts[0]]
    for part in parts[1:]:
        previous = out[-1]
        if previous.endswith("\\") and (len(previous) - len(previous.rstrip("\\"))) % 2:
            out[-1] = previous[:-1]
        else:
            out.append(" ")
        out.append(part)
    return "".join(out)


def _unescape(raw: str) -> str:
    """Double-quoted text with its escapes read; a `\\` that starts none is libyaml's error."""
    if "\\" not in raw:
        return raw
    if "\\" in _ESCAPE.sub("", raw):
        raise OffLayout
    return _ESCAPE.sub(_escaped, raw)


def _escaped(match: re.Match[str]) -> str:
    code = match.group(1)
    if len(code) == 1:
        return _ESCAPES[code]
    value = int(code[1:], 16)
    if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
        raise OffLayout
    return chr(value)


class Scalars:
    """Plain scalars' values as a loader (files.Loader) builds them: its resolver's tag, then
    the constructor yaml_build uses for that tag; OffLayout for any other tag (`<<`, `=`).

    Remembered across documents (a corpus repeats its keys and words): the value of a plain
    scalar depends on its text alone, and the values are immutable."""

    def __init__(self, loader: Any) -> None:
        self.tag_of, self.bools = loader.resolve, loader.bool_values
        self.make_int, self.make_float = loader.construct_yaml_int, loader.construct_yaml_float
        self.known: dict[str, Any] = {}
        self.lines: dict[str, Any] = {}  # texts found fit to be all of a line's plain value

    def __call__(self, text: str) -> Any:
        known = self.known.get(text, _MISS)
        if known is _MISS:
            known = self.build(text)
            if len(text) <= 256:
                self.remember(self.known, text, known)
        return known

    @staticmethod
    def remember(memo: dict[str, Any], text: str, value: Any) -> None:
        if len(memo) > 50_000:
            memo.clear()
        memo[text] = value

    def build(self, text: str) -> Any:
        tag = self.tag_of(ScalarNode, text, (True, False))
        if tag == STR:
            return text
        if tag == _INT:
            if text.isascii() and text.isdigit() and (text[0] != "0" or text == "0"):
                return int(text)
            return self.make_int(ScalarNode(tag, text))
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return self.bools[text.lower()]
        if tag == _FLOAT:
            return self.make_float(ScalarNode(tag, text))
        raise OffLayout
