"""A trace's event count and tools, read from the YAML event stream without building it.

On a cold cache every trace of the corpus is read; building each document costs about three
times what walking libyaml's event stream does. The walk keeps only the paths that matter
(`events[i].type`, `events[i].tool`, `events[i].response.tool_calls[j].name`) and gives up
(`Unsure`) on anything it would have to interpret like the loader does: aliases, complex keys,
a second document. Then facts.py loads the document the ordinary way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESOLVER = yaml.resolver.Resolver()
_STR = "tag:yaml.org,2002:str"
_COLLECTION_STARTS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_NODE_STARTS = (yaml.ScalarEvent, *_COLLECTION_STARTS)
_NODE_ENDS = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


class Unsure(Exception):
    """The stream holds something only the full loader reads right."""


@dataclass
class _Frame:
    is_map: bool
    key: str | None = None  # maps: the key whose value comes next (None: a key comes next)
    index: int = 0  # sequences: the index of the next item


@dataclass
class _Walk:
    frames: list[_Frame] = field(default_factory=list)
    skip: int = 0  # depth inside a collection that cannot hold a fact
    rooted: bool = False  # the document's root is a mapping
    count: int = 0
    tools: set[str] = field(default_factory=set)
    kind: str | None = None  # the current event's type
    tool: str | None = None
    names: list[str] = field(default_factory=list)


def scan_trace(raw: bytes) -> tuple[int, frozenset[str]] | None:
    """(event count, tools called), None when the root is not a mapping; yaml.YAMLError or
    Unsure when the stream cannot be walked."""
    walk = _Walk()
    documents = 0
    for event in yaml.parse(raw, Loader=_LOADER):
        if walk.skip:
            _skipping(walk, event)
        elif isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise Unsure("more than one document")
        elif isinstance(event, yaml.AliasEvent):
            raise Unsure("alias")
        elif isinstance(event, _NODE_STARTS):
            _start(walk, event)
        elif isinstance(event, _NODE_ENDS):
            _end(walk)
    return (walk.count, frozenset(walk.tools)) if walk.rooted else None


def _skipping(walk: _Walk, event: Any) -> None:
    # Inside an irrelevant subtree only the nesting depth matters (aliases there are harmless).
    if isinstance(event, _COLLECTION_STARTS):
        walk.skip += 1
    elif isinstance(event, _NODE_ENDS):
        walk.skip -= 1
        if not walk.skip:
            _advance(walk)


def _relevant(here: tuple[str | int | None, ...]) -> bool:
    """Whether a collection at this path can hold an event, a type, a tool or a call name."""
    depth = len(here)
    if depth < 2:
        return depth == 0 or here == ("events",)
    if here[0] != "events" or not isinstance(here[1], int) or depth > 5:
        return False
    return here[2:4] == ("response", "tool_calls")[: depth - 2]


def _path(walk: _Walk) -> tuple[str | int | None, ...]:
    return tuple(f.key if f.is_map else f.index for f in walk.frames)


def _start(walk: _Walk, event: Any) -> None:
    top = walk.frames[-1] if walk.frames else None
    if top is not None and top.is_map and top.key is None:
        if not isinstance(event, yaml.ScalarEvent):
            raise Unsure("complex mapping key")
        top.key = event.value
        return
    if top is None:
        walk.rooted = isinstance(event, yaml.MappingStartEvent)
    here = _path(walk)
    if isinstance(event, yaml.ScalarEvent):
        _scalar(walk, here, event)
        _advance(walk)
        return
    if not _relevant(here):
        walk.skip = 1
        return
    if len(here) == 2:
        walk.kind, walk.tool, walk.names = None, None, []
    walk.frames.append(_Frame(isinstance(event, yaml.MappingStartEvent)))


def _end(walk: _Walk) -> None:
    frame = walk.frames.pop()
    here = _path(walk)
    if here == ("events",) and not frame.is_map:
        walk.count = frame.index
    elif len(here) == 2 and here[0] == "events" and isinstance(here[1], int) and frame.is_map:
        # Same rule as facts._event_tools: a tool_call names its tool, others their requests.
        if walk.kind == "tool_call":
            walk.tools.update([walk.tool] if walk.tool is not None else [])
        else:
            walk.tools.update(walk.names)
    _advance(walk)


def _advance(walk: _Walk) -> None:
    if walk.frames:
        top = walk.frames[-1]
        if top.is_map:
            top.key = None
        else:
            top.index += 1


def _scalar(walk: _Walk, here: tuple[str | int | None, ...], event: Any) -> None:
    if len(here) < 3 or here[0] != "events" or not isinstance(here[1], int):
        return
    rest = here[2:]
    if rest not in (("type",), ("tool",)) and not _is_call_name(rest):
        return
    value = event.value if _is_str(event) else None
    if rest == ("type",):
        walk.kind = value
    elif rest == ("tool",):
        walk.tool = value
    elif value is not None:
        walk.names.append(value)


def _is_call_name(rest: tuple[str | int | None, ...]) -> bool:
    return (
        len(rest) == 4
        and rest[:2] == ("response", "tool_calls")
        and isinstance(rest[2], int)
        and rest[3] == "name"
    )


def _is_str(event: Any) -> bool:
    """Whether the loader would read this scalar as a string (plain `null`, `1`, `true` are not)."""
    if event.tag is not None:
        if event.tag not in ("!", _STR):
            raise Unsure("explicit tag")
        return True
    if not event.implicit[0]:
        return True  # quoted
    tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, (True, False))  # type: ignore[no-untyped-call]
    return bool(tag == _STR)
