"""A trace's event count and tools, read from the YAML event stream without building it.

On a cold cache every trace of the corpus is read; building each document costs two to three
times what walking libyaml's event stream does. The walk descends only where facts live
(`events[i].type`, `events[i].tool`, `events[i].response.tool_calls[j].name`), skips every
other subtree by depth counting, and gives up (`Unsure`) wherever it would have to interpret
the document as the loader does: an alias, a merge key or a tag where a fact could be, a
complex key, a second document. facts.py then loads the document the ordinary way, so the
walk never disagrees with the loader.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESOLVER = yaml.resolver.Resolver()
_STR = "tag:yaml.org,2002:str"
_SCALAR = yaml.ScalarEvent
_MAP_START = yaml.MappingStartEvent
_SEQ_START = yaml.SequenceStartEvent
_MAP_END = yaml.MappingEndEvent
_SEQ_END = yaml.SequenceEndEvent

Events = Iterator[Any]


class Unsure(Exception):
    """The stream holds something only the full loader reads right."""


def scan_trace(raw: bytes) -> tuple[int, frozenset[str]] | None:
    """(event count, tools called); None when the root is not a mapping.

    Raises yaml.YAMLError for malformed YAML and Unsure when the loader must decide.
    """
    events = iter(yaml.parse(raw, Loader=_LOADER))
    next(events)  # stream start
    start = next(events)
    if start.__class__ is not yaml.DocumentStartEvent:
        return None  # an empty stream
    root = next(events)
    found: tuple[int, frozenset[str]] | None = None
    if root.__class__ is _MAP_START:
        _no_tag(root)
        found = (0, frozenset())
        for key in _keys(events):
            if key == "events":
                found = _events(events)
            else:
                _skip(next(events), events)
    else:
        _skip(root, events)
    next(events)  # document end
    if next(events).__class__ is not yaml.StreamEndEvent:
        raise Unsure("more than one document")
    return found


def _keys(events: Events) -> Iterator[str]:
    """The keys of a mapping whose start was consumed; the caller consumes each value."""
    seen: set[str] = set()
    for event in events:
        if event.__class__ is _MAP_END:
            return
        if event.__class__ is not _SCALAR or event.value == "<<":
            raise Unsure("complex, aliased or merge key")
        if event.value in seen:
            raise Unsure("repeated key")  # the loader refuses the file
        seen.add(event.value)
        yield event.value


def _events(events: Events) -> tuple[int, frozenset[str]]:
    first = next(events)
    if first.__class__ is not _SEQ_START:
        _skip(first, events)  # not a list: no events
        return 0, frozenset()
    _no_tag(first)
    tools: set[str] = set()
    for count, item in enumerate(events):
        if item.__class__ is _SEQ_END:
            return count, frozenset(tools)
        if item.__class__ is _MAP_START:
            _no_tag(item)
            tools.update(_event(events))
        else:
            _skip(item, events)
    raise Unsure("unterminated sequence")


def _event(events: Events) -> list[str]:
    """Tools one event names: a tool_call its `tool`, any other its requested calls."""
    kind = tool = None
    names: list[str] = []
    for key in _keys(events):
        if key == "type":
            kind = _string(next(events), events)
        elif key == "tool":
            tool = _string(next(events), events)
        elif key == "response":
            names = _response(events)
        else:
            _skip(next(events), events)
    if kind == "tool_call":
        return [tool] if tool is not None else []
    return names


def _response(events: Events) -> list[str]:
    first = next(events)
    if first.__class__ is not _MAP_START:
        _skip(first, events)
        return []
    _no_tag(first)
    names: list[str] = []
    for key in _keys(events):
        if key == "tool_calls":
            names = _calls(events)
        else:
            _skip(next(events), events)
    return names


def _calls(events: Events) -> list[str]:
    first = next(events)
    if first.__class__ is not _SEQ_START:
        _skip(first, events)
        return []
    _no_tag(first)
    names: list[str] = []
    for item in events:
        if item.__class__ is _SEQ_END:
            return names
        if item.__class__ is not _MAP_START:
            _skip(item, events)
            continue
        _no_tag(item)
        name = None
        for key in _keys(events):
            if key == "name":
                name = _string(next(events), events)
            else:
                _skip(next(events), events)
        if name is not None:
            names.append(name)
    raise Unsure("unterminated sequence")


def _string(event: Any, events: Events) -> str | None:
    """A scalar the loader reads as a string, else None (a list, a number, null)."""
    if event.__class__ is not _SCALAR:
        _skip(event, events)
        return None
    if event.tag is not None:
        if event.tag not in ("!", _STR):
            raise Unsure("explicit tag")
        return str(event.value)
    if not event.implicit[0]:
        return str(event.value)  # quoted
    tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, (True, False))  # type: ignore[no-untyped-call]
    return str(event.value) if tag == _STR else None


def _skip(first: Any, events: Events) -> None:
    """Consume the node that `first` starts; nested aliases are skipped with it.

    An alias as the node itself is refused: callers also skip where a fact may hide behind
    one (`events: *list`), and only the loader can resolve it.
    """
    cls = first.__class__
    if cls is _SCALAR:
        return
    if cls is yaml.AliasEvent:
        raise Unsure("alias")  # where the caller looks for a value: the loader resolves it
    depth = 1
    for event in events:
        cls = event.__class__
        if cls is _MAP_START or cls is _SEQ_START:
            depth += 1
        elif cls is _MAP_END or cls is _SEQ_END:
            depth -= 1
            if not depth:
                return


def _no_tag(event: Any) -> None:
    if event.tag is not None:
        raise Unsure("tagged collection")
