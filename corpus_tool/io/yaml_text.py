"""YAML written as text, line by line: files.dump_yaml's fastest path, for plain documents.

The event stream (yaml_stream) still costs a Python object and a call into the emitter for
every value: for a trace of 300,000 events, tens of millions. This writer builds the lines
itself, with the layout libyaml's emitter gives a block-style document (a sequence in a
mapping not indented, `- key: value` for a mapping in a sequence, `{}` and `[]` for empty
ones) and each scalar's text decided the way the emitter decides it:

- a string of characters the emitter writes as they are (printable, not a line break) with
  no space at either end is written plain or single-quoted here, folded at spaces past the
  width as the emitter folds it (the emitter's own rules, `_block_plain` and `_folded`);
- any other string (a line break, a tab, a character it escapes, a space at an end, the empty
  string) is written by libyaml itself, once, in a tiny document that puts it at the same
  column and indentation, and the answer is remembered (a trace repeats its strings).

The bytes are yaml.dump's with files.dump_yaml's options (tests/io/test_dump_text.py compares
them on every kind of scalar, at every depth). Anything else — a key that is not a string or
not a simple key, a dict or list met twice (an alias), another type, other options — raises
`yaml_stream.Unplain` and the caller takes the event stream or yaml.dump.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

from corpus_tool.io.yaml_stream import Unplain

WIDTH = 100  # the emitter's best width: dump_yaml's `width`
OPTIONS = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False, "width": WIDTH}
_FLOAT = "tag:yaml.org,2002:float"
_START_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_PLAIN, _QUOTED, _ASK = 0, 1, 2  # how a string is written: here plain, here quoted, by libyaml
# what libyaml writes as it is with allow_unicode (IS_PRINTABLE), less the line breaks
# U+2028/U+2029 and the byte-order mark; anything else it escapes or breaks at
_UNWRITTEN = re.compile("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]")

Dump = Callable[[Any], str]  # the event stream's dump (yaml_stream.dump with the same options)


def dump(
    data: Any, style: Callable[[str], str | None], events: Dump, options: dict[str, Any]
) -> str:
    """`data` as yaml.dump writes it with dump_yaml's `options`, when the document is plain
    (a non-empty dict or list at the top); `style` is dump_yaml's scalar style of a string,
    `events` the event stream's dump that writes the strings this writer does not."""
    if options != OPTIONS or type(data) not in (dict, list) or not data:
        raise Unplain("options or root")
    writer = _TextWriter(style, events)
    try:
        if type(data) is dict:
            writer.mapping(data, 0, False)
        else:
            writer.sequence(data, 0, False)
    except RecursionError:
        if writer.shared():  # a mapping or sequence inside itself
            raise Unplain("shared") from None
        raise
    if writer.shared():
        raise Unplain("shared")
    writer.flush()
    return "".join(writer.chunks)


def _block_plain(text: str) -> bool:
    """May the emitter write `text` (printable, no space at an end) plain in block
    context? Not when an indicator would read differently (yaml_emitter_analyze_scalar)."""
    first = text[0]
    if first in _START_INDICATORS:
        return False
    if first in "?:-" and (len(text) == 1 or text[1] == " "):
        return False
    if text.startswith(("---", "...")):
        return False
    return not (": " in text or text.endswith(":") or " #" in text)


def _folded(text: str, indent: int, column: int, quoted: bool) -> str:
    """`text` written from `column` as the emitter writes a plain or single-quoted scalar:
    a lone space past the width becomes a line break and `indent` spaces (in quotes, not the
    first or last character; a run of spaces never breaks). The text has no space at either
    end, so the character after a break is never a space."""
    if quoted:  # doubled quotes count in the column as they are written
        text = text.replace("'", "''")
        column += 1
    lines = []
    start = 0
    while True:
        # the first space past the width: its column is `column + (at - start)`
        lowest = start + WIDTH - column + 1
        at = text.find(" ", lowest if lowest > start else start)
        while at != -1 and (text[at - 1] == " " or text[at + 1] == " "):  # not lone
            at = text.find(" ", at + 1)
        if at == -1:
            lines.append(text[start:])
            break
        lines.append(text[start:at])
        start, column = at + 1, indent
    folded = ("\n" + " " * indent).join(lines)
    return "'" + folded + "'" if quoted else folded


_LIMIT = 1 << 16  # lines remembered at one depth before they are forgotten (a bound on memory)

# the lines already written at one indentation: of a string value by (key, value), of an int
# by (key, value), of null by key, and the `key:` above a mapping or sequence by key
_Level = tuple[
    dict[tuple[str, str], str], dict[tuple[str, int], str], dict[str, str], dict[str, str]
]


class _TextWriter:
    def __init__(self, style: Callable[[str], str | None], events: Dump):
        self.out: list[str] = []  # the lines not yet joined into a chunk
        self.chunks: list[str] = []
        self.style = style
        self.events = events
        self.kinds: dict[str, int] = {}
        self.keys: dict[str, str] = {}
        self.asked: dict[tuple[str, int, int], str] = {}
        self.floats: dict[str, str] = {}
        self.written: list[Any] = []  # every mapping and sequence, as it is met
        self.pads = [" " * n for n in range(64)]
        self.levels: list[_Level] = []

    def pad(self, n: int) -> str:
        pads = self.pads
        while n >= len(pads):
            pads.append(" " * len(pads))
        return pads[n]

    def level(self, indent: int) -> _Level:
        levels = self.levels
        while indent >= len(levels):
            levels.append(({}, {}, {}, {}))
        return levels[indent]

    def mapping(self, data: dict[Any, Any], indent: int, inline: bool) -> None:
        """A non-empty mapping at `indent`; `inline`: its first key follows a `- ` (its line
        is written without the indentation before anything below it can be flushed)."""
        self.written.append(data)  # each container once, or yaml.dump writes an alias
        try:
            strs, ints, nones, heads = self.levels[indent]
        except IndexError:
            strs, ints, nones, heads = self.level(indent)
        out = self.out
        append = out.append
        first = len(out)
        for key, value in data.items():  # the commonest kinds first, each line remembered
            if type(key) is not str:
                raise Unplain("key")
            kind = type(value)
            if kind is str:
                append(strs.get((key, value)) or self.text_line(key, value, indent, strs))
            elif (kind is dict or kind is list) and value:
                append(heads.get(key) or self.head(key, indent, heads))
                if inline:
                    out[first], inline = out[first][indent:], False
                if kind is dict:
                    self.mapping(value, indent + 2, False)
                else:
                    self.sequence(value, indent, False)  # not indented under a key
            elif kind is int:
                append(ints.get((key, value)) or self.line(key, value, indent, ints))
            elif value is None:
                append(nones.get(key) or self.line(key, value, indent, nones))
            else:
                append(self.line(key, value, indent, None))
        if inline:
            out[first] = out[first][indent:]

    def text_line(self, key: str, value: str, indent: int, known: dict[Any, str]) -> str:
        """The line of `key` and the string `value` at `indent`, remembered in `known`."""
        name = self.keys.get(key) or self.key(key)
        kind = self.kinds.get(value)
        if kind is None:
            kind = self.kinds[value] = self._kind(value)
        column = indent + 2 + len(name)
        if kind == _PLAIN and (column + len(value) <= WIDTH or " " not in value):
            shown = value  # string()'s commonest answers, without the call
        elif kind == _QUOTED and column + len(value) + 2 <= WIDTH and "'" not in value:
            shown = "'" + value + "'"
        else:
            shown = self.string(value, indent + 2, column)
        if len(known) > _LIMIT:
            known.clear()
        text = known[key, value] = f"{self.pad(indent)}{name}: {shown}\n"
        return text

    def line(self, key: str, value: Any, indent: int, known: dict[Any, str] | None) -> str:
        """The line of `key` and another scalar (or an empty) `value` at `indent`,
        remembered in `known` (ints by key and value, nulls by key) if given."""
        name, pad, kind = self.key(key), self.pad(indent), type(value)
        if kind is dict or kind is list:
            return pad + name + (": {}\n" if kind is dict else ": []\n")
        inner = indent + 2
        text = pad + name + ": " + self.scalar(value, inner, inner + len(name)) + "\n"
        if known is not None:
            if len(known) > _LIMIT:
                known.clear()
            known[key if value is None else (key, value)] = text
        return text

    def head(self, key: str, indent: int, known: dict[str, str]) -> str:
        """The `key:` line above a non-empty mapping or sequence at `indent`, remembered."""
        text = known[key] = self.pad(indent) + self.key(key) + ":\n"
        return text

    def sequence(self, data: list[Any], indent: int, inline: bool) -> None:
        """A non-empty sequence at `indent`; `inline`: its first item follows a `- `."""
        self.written.append(data)  # each container once, or yaml.dump writes an alias
        out, dash, inner = self.out, self.pad(indent) + "- ", indent + 2
        append = out.append
        head = "- " if inline else dash
        for item in data:
            kind = type(item)
            if kind is dict and item:
                append(head)
                self.mapping(item, inner, True)
            elif kind is list and item:
                append(head)
                self.sequence(item, inner, True)
            elif kind is dict:
                append(head + "{}\n")
            elif kind is list:
                append(head + "[]\n")
            else:
                append(head + self.scalar(item, inner, inner) + "\n")
            head = dash
            if len(out) > 4096:
                self.flush()

    def shared(self) -> bool:
        """Was a mapping or sequence met twice? (Checked once at the end: the cost of a
        check as each is met was a tenth of the writer's time.)"""
        written = self.written
        return len(set(map(id, written))) != len(written)

    def flush(self) -> None:
        """The lines so far joined into one chunk: a line's own string object, fifty bytes or
        more besides its text, lives only until then (a long trace has millions of lines)."""
        self.chunks.append("".join(self.out))
        self.out.clear()

    def key(self, key: Any) -> str:
        if type(key) is not str:
            raise Unplain("key")
        known = self.keys.get(key)
        if known is None:
            known = self.keys[key] = self._key(key)
        return known

    def _key(self, key: str) -> str:
        kind = self._kind(key)
        if kind != _ASK and len(key) <= 128:
            return key if kind == _PLAIN else "'" + key.replace("'", "''") + "'"
        text = self.events({key: 1})
        shown = text.removesuffix(": 1\n")
        if shown == text or "\n" in shown or shown.startswith("?"):
            raise Unplain("complex key")
        return shown

    def scalar(self, value: Any, indent: int, column: int) -> str:
        """A scalar's text, starting at `column`, continued at `indent` (no line break at
        the end: the caller writes it)."""
        kind = type(value)
        if kind is str:
            return self.string(value, indent, column)
        if kind is int:
            return str(value)
        if kind is bool:
            return "true" if value else "false"
        if value is None:
            return "null"
        if kind is float:
            return self.float(value)
        raise Unplain(kind.__name__)

    def string(self, text: str, indent: int, column: int) -> str:
        kind = self.kinds.get(text)
        if kind is None:
            kind = self.kinds[text] = self._kind(text)
        if kind == _PLAIN:
            if column + len(text) <= WIDTH or " " not in text:
                return text
            return self._remembered(text, indent, column, False)
        if kind == _QUOTED:
            if column + len(text) + 2 <= WIDTH and "'" not in text:
                return "'" + text + "'"
            if " " not in text:
                return "'" + text.replace("'", "''") + "'"
            return self._remembered(text, indent, column, True)
        return self._remembered(text, indent, column, None)

    def _kind(self, text: str) -> int:
        if not text or text[0] == " " or text[-1] == " " or _UNWRITTEN.search(text):
            return _ASK
        style = self.style(text)
        if style is None and _block_plain(text):
            return _PLAIN
        return _QUOTED if style in (None, "'") else _ASK

    def _remembered(self, text: str, indent: int, column: int, quoted: bool | None) -> str:
        where = (text, indent, column)
        known = self.asked.get(where)
        if known is None:
            if quoted is None:
                known = self._asked(text, indent, column)
            else:
                known = _folded(text, indent, column, quoted)
            self.asked[where] = known
        return known

    def _asked(self, text: str, indent: int, column: int) -> str:
        """libyaml's own text for `text` at `column`, continued at `indent`: written in a
        document that puts it there (a value under nested keys, or an item of a sequence)."""
        depth, outer = divmod(indent - 2, 2)
        if outer or depth < 0:
            raise Unplain("odd indentation")
        inner: Any
        if column == indent:  # an item of a sequence at indent - 2
            inner, tail = {"a": [text]}, self.pad(indent - 2) + "a:\n" + self.pad(indent - 2) + "-"
        else:  # a value under a key at indent - 2
            name = "k" * (column - indent)
            inner, tail = {name: text}, self.pad(indent - 2) + name + ":"
        doc, head = inner, ""
        for level in range(depth - 1, -1, -1):
            doc = {"a": doc}
            head = self.pad(2 * level) + "a:\n" + head
        written = self.events(doc)
        prefix = head + tail + " "
        if not written.startswith(prefix) or not written.endswith("\n"):
            raise Unplain("unexpected probe")
        shown = written[len(prefix) : -1]
        if shown.endswith("\n..."):  # a kept final line break ends the document open
            raise Unplain("open-ended")
        return shown

    def float(self, value: float) -> str:
        name = repr(value)
        known = self.floats.get(name)
        if known is None:
            known = yaml.representer.SafeRepresenter().represent_float(value).value
            resolver: Any = yaml.resolver.Resolver()
            resolved = resolver.resolve(yaml.ScalarNode, known, (True, False))
            if resolved != _FLOAT:
                raise Unplain("float")
            self.floats[name] = known
        return known
