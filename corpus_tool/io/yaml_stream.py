"""YAML written as a stream of events, without the node tree: files.dump_yaml's fast path.

PyYAML's dump builds a node for every value of the document before it writes a byte, which
for a trace of 300,000 events is millions of nodes, several times the size of the document
itself. For documents of plain values (str, int, float, bool, None, dict, list) with no dict
or list met twice (which PyYAML would write as an anchor and alias), this sends the C emitter
the same events its serializer would, value by value, so the bytes are the same and nothing
but the output is kept. Anything else raises `Unplain`, and the caller dumps the usual way.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import yaml
from yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

STR, MAP, SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
INT, BOOL, NULL = "tag:yaml.org,2002:int", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"


class Unplain(Exception):
    """The document holds a value this writer does not handle (or a shared dict or list)."""


def dump(
    data: Any, dumper_class: type[Any], style: Callable[[str], str | None], **options: Any
) -> str:
    """`data` as yaml.dump(data, Dumper=dumper_class, **options) writes it, when it is plain.

    `style` is the dumper's choice of scalar style for a string (its str representer)."""
    stream = io.StringIO()
    dumper = dumper_class(stream, **options)
    try:
        dumper.open()
        _Writer(dumper, style).document(data)
        dumper.close()
    finally:
        dumper.dispose()
    return stream.getvalue()


class _Writer:
    def __init__(self, dumper: Any, style: Callable[[str], str | None]):
        self.emit = dumper.emit
        self.resolve = dumper.resolve
        self.float_node = dumper.represent_float
        self.style = style
        self.seen: set[int] = set()
        self.implicit: dict[tuple[str, str], tuple[bool, bool]] = {}

    def document(self, data: Any) -> None:
        self.emit(DocumentStartEvent(explicit=False, version=None, tags=None))
        self.value(data)
        self.emit(DocumentEndEvent(explicit=False))

    def value(self, data: Any) -> None:
        kind = type(data)
        if kind is str:
            implicit = self._implicit(STR, data)
            self.emit(ScalarEvent(None, STR, implicit, data, style=self.style(data)))
        elif kind is dict:
            self._container(data)
            self.emit(MappingStartEvent(None, MAP, True, flow_style=False))
            for key, item in data.items():
                self.value(key)
                self.value(item)
            self.emit(MappingEndEvent())
        elif kind is list:
            self._container(data)
            self.emit(SequenceStartEvent(None, SEQ, True, flow_style=False))
            for item in data:
                self.value(item)
            self.emit(SequenceEndEvent())
        elif kind is int:
            self._scalar(INT, str(data))
        elif kind is bool:
            self._scalar(BOOL, "true" if data else "false")
        elif data is None:
            self._scalar(NULL, "null")
        elif kind is float:
            node = self.float_node(data)
            self._scalar(node.tag, node.value)
        else:
            raise Unplain(kind.__name__)

    def _container(self, data: dict[Any, Any] | list[Any]) -> None:
        if id(data) in self.seen:  # PyYAML writes an anchor and an alias
            raise Unplain("shared")
        self.seen.add(id(data))

    def _scalar(self, tag: str, text: str) -> None:
        self.emit(ScalarEvent(None, tag, self._implicit(tag, text), text))

    def _implicit(self, tag: str, text: str) -> tuple[bool, bool]:
        """What PyYAML's serializer computes for a scalar: may its tag go unwritten, plain and
        quoted? (Remembered: a trace repeats its strings.)"""
        known = self.implicit.get((tag, text))
        if known is None:
            known = (
                tag == self.resolve(yaml.ScalarNode, text, (True, False)),
                tag == self.resolve(yaml.ScalarNode, text, (False, True)),
            )
            self.implicit[(tag, text)] = known
        return known
