"""Where a JSON path sits in a YAML file: the line numbers findings print."""

from __future__ import annotations

import yaml

from corpus_tool.io.files import Loader


def lines_of(text: str | bytes) -> dict[tuple[str | int, ...], int]:
    """Map every JSON path of a YAML document to its 1-based line (for findings)."""
    lines: dict[tuple[str | int, ...], int] = {}
    try:
        root = yaml.compose(text, Loader=Loader)
    except yaml.YAMLError:
        return lines
    stack: list[tuple[yaml.Node, tuple[str | int, ...]]] = [(root, ())] if root else []
    while stack:
        node, where = stack.pop()
        lines.setdefault(where, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                here = (*where, key.value)
                lines[here] = key.start_mark.line + 1
                stack.append((value, here))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, (*where, i)) for i, item in enumerate(node.value))
    return lines


def line_of(lines: dict[tuple[str | int, ...], int], where: tuple[str | int, ...]) -> int | None:
    """The line of the deepest known prefix of `where`."""
    for cut in range(len(where), -1, -1):
        if where[:cut] in lines:
            return lines[where[:cut]]
    return None


def line_at(text: str | bytes, where: tuple[str | int, ...]) -> int | None:
    """The line of `where` (or of its deepest known prefix) in a YAML document."""
    return line_of(lines_of(text), where)
