"""The shipped schemas: well-formed, documented field by field, strict where typos hide."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from corpus_tool.io import schema

KINDS = ["trace", "expected", "waiver", "corpus", "results"]


def _properties(node: Any, where: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        for name, sub in (node.get("properties") or {}).items():
            if isinstance(sub, dict):
                yield f"{where}.{name}", sub
        for key, sub in node.items():
            if key not in ("properties", "if"):  # an `if` names a condition, not a field
                yield from _properties(sub, f"{where}/{key}")
        for name, sub in (node.get("properties") or {}).items():
            yield from _properties(sub, f"{where}.{name}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from _properties(sub, f"{where}[{i}]")


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_valid_2020_12(kind: str) -> None:
    document = schema.load_schema(kind)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(document)


@pytest.mark.parametrize("kind", KINDS)
def test_schema_describes_every_field(kind: str) -> None:
    undocumented = sorted(
        {
            where
            for where, sub in _properties(schema.load_schema(kind))
            if "description" not in sub and "$ref" not in sub and sub is not True
        }
    )
    assert undocumented == []


@pytest.mark.parametrize(
    ("kind", "document", "typo"),
    [
        (
            "expected",
            {
                "schema_version": 1,
                "id": "a",
                "status": "active",
                "tier": "fast",
                "owner": "o",
                "expect": {"tools": {"requried": ["x"]}},
            },
            "requried",
        ),
        ("corpus", {"schema_version": 1, "impact": {"unmaped": "all"}}, "unmaped"),
        (
            "waiver",
            {
                "schema_version": 1,
                "id": "W",
                "case": "a",
                "checks": ["all"],
                "reason": "r",
                "owner": "o",
                "expires": "2030-01-01",
                "expiry": "x",
            },
            "expiry",
        ),
    ],
)
def test_schema_rejects_typos(kind: str, document: dict[str, Any], typo: str) -> None:
    messages = [e.message for e in schema.errors(kind, document)]
    assert any(typo in m for m in messages), messages


def test_schema_trace_event_types_are_strict() -> None:
    event = {"seq": 1, "type": "tool_call", "tool": "t", "arguments": {}, "result": 1, "reslt": 2}
    doc = {
        "schema_version": 1,
        "id": "a",
        "source": {"format": "native", "sha256": "0" * 64},
        "recorded": {"started_at": "x", "agent": {}, "models": []},
        "input": {},
        "events": [event],
        "terminal": {"status": "failed"},
    }
    messages = [e.message for e in schema.errors("trace", doc)]
    assert any("reslt" in m for m in messages), messages


def test_schema_validators_are_built_once() -> None:
    assert schema.validator("trace") is schema.validator("trace")


class _Text(str):
    pass


@pytest.mark.parametrize(
    ("doc", "plain"),
    [
        ({"a": [1, 2.5, None, True, "x", {"b": [], "c": {}}]}, True),
        ([[[["deep"]]]], True),
        ("text", True),
        ({"a": [1, {"b": (1,)}]}, False),  # a tuple deep down: not what JSON parses to
        ({"events": [{"seq": 1}, {2: "x"}]}, False),  # an integer key in the second item
        ({"a": {"b": {_Text("c"): 1}}}, False),  # a str subclass as a key
        ({"a": [_Text("value")]}, False),
        ({"a": b"bytes"}, False),
        ([[[[set()]]]], False),
    ],
)
def test_is_plain_is_true_only_for_what_json_parses_to(doc: Any, plain: bool) -> None:
    """A non-JSON value anywhere keeps the compiled schema check from answering."""
    assert schema.is_plain(doc) is plain
