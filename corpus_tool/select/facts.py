"""What `affected` needs to know of a case: the tools its trace calls, its size, tags and tier.

Facts are read from one file's bytes, so they can be cached by git blob id (cache.py).
A file that does not parse is a fact too (`readable=False`): selection then errs on the safe
side instead of stopping.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from corpus_tool.errors import InputError
from corpus_tool.io import files
from corpus_tool.select.scan import Unsure, scan_trace


@dataclass(frozen=True)
class TraceFacts:
    """From trace.yaml: the tools called (sorted) and the number of recorded events."""

    tools: tuple[str, ...] = ()
    events: int = 0
    readable: bool = True


@dataclass(frozen=True)
class ExpectedFacts:
    """From expected.yaml: the case's tags (sorted) and tier."""

    tags: tuple[str, ...] = ()
    tier: str | None = None
    readable: bool = True


def trace_facts(raw: bytes) -> TraceFacts:
    """Tools named by tool_call events and by model responses' tool_calls, and the event count.

    A model response's tool call counts too: when the tool's own span was lost, the agent
    still calls that tool on replay. Read by walking the YAML event stream (scan.py), which
    hands anything unusual back to the loader.
    """
    try:
        scanned = scan_trace(raw)
    except Unsure:
        return loaded_trace_facts(raw)
    except yaml.YAMLError:
        return TraceFacts(readable=False)
    if scanned is None:
        return TraceFacts(readable=False)
    return TraceFacts(tuple(sorted(scanned[1])), scanned[0])


def loaded_trace_facts(raw: bytes) -> TraceFacts:
    """trace_facts by loading the whole document: the reference the scan must agree with."""
    data = _mapping(raw, "trace.yaml")
    if data is None:
        return TraceFacts(readable=False)
    events = data.get("events")
    if not isinstance(events, list):
        return TraceFacts()
    tools: set[str] = set()
    for event in events:
        if isinstance(event, Mapping):
            tools.update(_event_tools(event))
    return TraceFacts(tuple(sorted(tools)), len(events))


def _event_tools(event: Mapping[str, Any]) -> list[str]:
    if event.get("type") == "tool_call":
        tool = event.get("tool")
        return [tool] if isinstance(tool, str) else []
    response = event.get("response")
    calls = response.get("tool_calls") if isinstance(response, Mapping) else None
    if not isinstance(calls, list):
        return []
    return [c["name"] for c in calls if isinstance(c, Mapping) and isinstance(c.get("name"), str)]


def expected_facts(raw: bytes) -> ExpectedFacts:
    """Tags and tier of an expected.yaml."""
    data = _mapping(raw, "expected.yaml")
    if data is None:
        return ExpectedFacts(readable=False)
    tags = data.get("tags")
    tier = data.get("tier")
    return ExpectedFacts(
        tuple(sorted({str(t) for t in tags})) if isinstance(tags, list) else (),
        tier if isinstance(tier, str) else None,
    )


def waiver_case(raw: bytes) -> str | None:
    """The case a waiver names in its `case:` key (None: no case, or unreadable)."""
    data = _mapping(raw, "waiver")
    case = data.get("case") if data is not None else None
    return case if isinstance(case, str) else None


def _mapping(raw: bytes, name: str) -> Mapping[str, Any] | None:
    try:
        data = files.parse_yaml(raw, Path(name))
    except InputError:
        return None
    return data if isinstance(data, Mapping) else None
