"""Arguments against what `tools.args` asks, in the graders' words (engine: model.field_diff)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corpus_tool.grade.view import show
from corpus_tool.model.field_diff import FieldDiff, field_diff
from corpus_tool.model.values import ABSENT


def describe(diff: FieldDiff) -> str:
    """`amount: expected 19900, got 199` (or missing / unexpected)."""
    if diff.actual is ABSENT:
        return f"{diff.path}: missing, expected {show(diff.expected)}"
    if diff.expected is ABSENT:
        return f"{diff.path}: unexpected argument {show(diff.actual)}"
    return f"{diff.path}: expected {show(diff.expected)}, got {show(diff.actual)}"


def subset_diff(match: Mapping[str, Any], args: Mapping[str, Any]) -> list[FieldDiff]:
    """Differences on the listed keys only; other arguments may be anything."""
    return field_diff(match, args, "", extra=False)


def exact_diff(match: Mapping[str, Any], args: Mapping[str, Any]) -> list[FieldDiff]:
    """Differences on every key: listed ones must be equal and no others may appear."""
    return field_diff(match, args, "")
