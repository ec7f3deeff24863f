"""Values from a composed YAML node tree, built fast for the documents a corpus holds.

PyYAML's C loader parses and composes in C, then constructs every value in Python through a
general machinery (generators for mappings, a constructor looked up per node, deep copies of
state), and the duplicate-key check ran on top of that. Corpus files are plain data: mappings,
sequences, strings, numbers, booleans and nulls. `build` constructs exactly those, checking
duplicate keys, depth and size on the way, in one walk.

Anything else (an alias, a merge key, a tag such as `!!binary` or `!!timestamp`, a non-scalar
key, a key written twice, too deep, too many values) raises `Unusual`, and the caller builds the
document with PyYAML's own constructor instead, which produces the same value, or the same
error, as before. So `build` is never a second YAML dialect: it is a fast path that either
agrees with the constructor or steps aside.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_TAG = "tag:yaml.org,2002:"
STR, MAP, SEQ = _TAG + "str", _TAG + "map", _TAG + "seq"


class ScalarExtent(NamedTuple):
    """Where a scalar is written, in characters; `block`: a `|` or `>` scalar, whose first
    line is its header (`| # a comment may follow`), not its text."""

    start: int
    end: int
    block: bool


class Unusual(Exception):
    """The document needs PyYAML's general constructor (or holds an error it reports)."""


class _Walk:
    """One walk over one document's nodes."""

    def __init__(
        self, constructor: yaml.constructor.SafeConstructor, max_depth: int, budget: int
    ) -> None:
        self.constructor = constructor
        self.max_depth = max_depth
        self.left = budget
        self.seen: set[int] = set()  # collection nodes met: a second meeting is an alias
        self.spans: list[ScalarExtent] = []
        self.scalars: dict[str, Callable[[ScalarNode], Any]] = {
            _TAG + "null": _null,
            _TAG + "bool": _bool,
            _TAG + "int": self._int,
            _TAG + "float": constructor.construct_yaml_float,
        }

    def value(self, node: Node, depth: int) -> Any:
        self.left -= 1
        if depth > self.max_depth or self.left < 0:
            raise Unusual
        kind = type(node)
        if kind is ScalarNode:
            return self.scalar(node)  # type: ignore[arg-type]
        if id(node) in self.seen:
            raise Unusual
        self.seen.add(id(node))
        if kind is MappingNode and node.tag == MAP:
            return self.mapping(node, depth)  # type: ignore[arg-type]
        if kind is SequenceNode and node.tag == SEQ:
            return [self.value(item, depth + 1) for item in node.value]
        raise Unusual

    def mapping(self, node: MappingNode, depth: int) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if type(key_node) is not ScalarNode:
                raise Unusual
            key = self.scalar(key_node)  # a merge key (<<) has no scalar builder: Unusual
            if key in out:  # a duplicate, or two spellings of one key (1 and 0x1)
                raise Unusual
            out[key] = self.value(value_node, depth + 1)
        return out

    def scalar(self, node: ScalarNode) -> Any:
        text = node.value
        if "#" in text:  # where comments can hide: see comment_spans
            self.spans.append(_content_span(node))
        if node.tag == STR:
            return text
        build = self.scalars.get(node.tag)
        if build is None:
            raise Unusual
        return build(node)

    def _int(self, node: ScalarNode) -> Any:
        text = node.value
        if text.isascii() and text.isdigit() and (text[0] != "0" or text == "0"):
            return int(text)
        return self.constructor.construct_yaml_int(node)


def _null(node: ScalarNode) -> None:
    return None


def _bool(node: ScalarNode) -> bool:
    return bool(yaml.constructor.SafeConstructor.bool_values[node.value.lower()])


def _content_span(node: ScalarNode) -> ScalarExtent:
    return ScalarExtent(node.start_mark.index, node.end_mark.index, node.style in ("|", ">"))


def build(
    root: Node, constructor: yaml.constructor.SafeConstructor, max_depth: int, budget: int
) -> tuple[Any, list[ScalarExtent]]:
    """The document's value, and the character spans of its scalars that hold a `#`.

    Raises Unusual when PyYAML's own constructor must build it (see the module docstring).
    """
    walk = _Walk(constructor, max_depth, budget)
    return walk.value(root, 0), walk.spans
