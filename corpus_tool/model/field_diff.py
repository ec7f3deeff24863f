"""The one diff engine: where two JSON values differ, field by field.

Replay uses it to show how a request or tool call differs from the recorded one, grading to
show how a call's arguments differ from what `expect` asks. A side that lacks a field holds
`ABSENT` (never a look-alike string), so a missing value cannot compare equal to a present one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from corpus_tool.model.values import ABSENT


@dataclass(frozen=True, slots=True)
class FieldDiff:
    """One differing place: a path, the expected (or recorded) value, the actual one."""

    path: str
    expected: Any = ABSENT
    actual: Any = ABSENT

    def data(self) -> dict[str, Any]:
        """JSON-ready form; an absent side is left out."""
        out: dict[str, Any] = {"path": self.path}
        if self.expected is not ABSENT:
            out["expected"] = self.expected
        if self.actual is not ABSENT:
            out["actual"] = self.actual
        return out


def same(left: Any, right: Any) -> bool:
    """Equal as JSON values: key order never matters, 1 equals 1.0, true is not 1."""
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if _is_list(left) and _is_list(right):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    return _scalar_equal(left, right)


def field_diff(
    expected: Any, actual: Any, path: str = "$", *, extra: bool = True, limit: int | None = None
) -> list[FieldDiff]:
    """Every differing leaf, in document order (expected's keys, then actual's own).

    `extra=False` compares only the keys `expected` lists at the top level (a subset match);
    `limit` stops after that many differences.
    """
    found: list[FieldDiff] = []
    if not _identical(expected, actual):
        _walk(expected, actual, path, found, limit, extra)
    return found


def _identical(left: Any, right: Any) -> bool:
    """Surely no leaf differs: equal for Python (key types, structure) and as JSON text (true is
    not 1). Checked at C speed first, because a model request re-sends the whole conversation
    and is nearly always equal to the recorded one; anything else walks the values."""
    try:
        if left != right:
            return False
        return _text(left) == _text(right)
    except (TypeError, ValueError, RecursionError):
        return False


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, allow_nan=False)


def _walk(
    expected: Any, actual: Any, path: str, found: list[FieldDiff], limit: int | None, extra: bool
) -> None:
    if limit is not None and len(found) >= limit:
        return
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        keys = [*expected, *(k for k in actual if k not in expected)] if extra else [*expected]
        for key in keys:
            where = f"{path}.{key}" if path else str(key)
            _walk(expected.get(key, ABSENT), actual.get(key, ABSENT), where, found, limit, True)
    elif _is_list(expected) and _is_list(actual):
        for i in range(max(len(expected), len(actual))):
            left = expected[i] if i < len(expected) else ABSENT
            right = actual[i] if i < len(actual) else ABSENT
            _walk(left, right, f"{path}[{i}]", found, limit, True)
    elif not same(expected, actual):
        found.append(FieldDiff(path or "$", expected, actual))


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _scalar_equal(a: Any, b: Any) -> bool:
    if a is ABSENT or b is ABSENT:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, (Mapping, list, tuple)) or isinstance(b, (Mapping, list, tuple)):
        return False
    return type(a) is type(b) and bool(a == b)
