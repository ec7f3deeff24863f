"""Comparing arguments as JSON values, and saying which part differs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corpus_tool.grade.run import show

_MISSING = object()


@dataclass(frozen=True)
class Difference:
    """One place where a call's arguments differ from what was expected."""

    path: str
    expected: Any = _MISSING
    actual: Any = _MISSING

    def text(self) -> str:
        """`amount: expected 19900, got 199` (or missing / unexpected)."""
        if self.actual is _MISSING:
            return f"{self.path}: missing, expected {show(self.expected)}"
        if self.expected is _MISSING:
            return f"{self.path}: unexpected argument {show(self.actual)}"
        return f"{self.path}: expected {show(self.expected)}, got {show(self.actual)}"

    def data(self) -> dict[str, Any]:
        """JSON-ready form; an absent side is left out."""
        out: dict[str, Any] = {"path": self.path}
        if self.expected is not _MISSING:
            out["expected"] = self.expected
        if self.actual is not _MISSING:
            out["actual"] = self.actual
        return out


def same(a: Any, b: Any) -> bool:
    """JSON equality: 1 equals 1.0, but true is not 1, and containers compare deeply."""
    return not diff(a, b, "")


def diff(expected: Any, actual: Any, path: str) -> list[Difference]:
    """Every differing path between two JSON values (whole value when shapes differ)."""
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return _diff_mappings(expected, actual, path, extra=True)
    if _is_list(expected) and _is_list(actual) and len(expected) == len(actual):
        out: list[Difference] = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            out.extend(diff(e, a, f"{path}[{i}]"))
        return out
    return [] if _scalar_equal(expected, actual) else [Difference(path or "$", expected, actual)]


def subset_diff(match: Mapping[str, Any], args: Mapping[str, Any]) -> list[Difference]:
    """Differences on the listed keys only; other arguments may be anything."""
    return _diff_mappings(match, args, "", extra=False)


def exact_diff(match: Mapping[str, Any], args: Mapping[str, Any]) -> list[Difference]:
    """Differences on every key: listed ones must be equal and no others may appear."""
    return _diff_mappings(match, args, "", extra=True)


def _diff_mappings(
    expected: Mapping[str, Any], actual: Mapping[str, Any], path: str, *, extra: bool
) -> list[Difference]:
    out: list[Difference] = []
    for key, value in expected.items():
        where = f"{path}.{key}" if path else str(key)
        if key in actual:
            out.extend(diff(value, actual[key], where))
        else:
            out.append(Difference(where, expected=value))
    if extra:
        for key in sorted(set(actual) - set(expected), key=str):
            out.append(Difference(f"{path}.{key}" if path else str(key), actual=actual[key]))
    return out


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def _scalar_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if _is_list(a) or _is_list(b) or isinstance(a, Mapping) or isinstance(b, Mapping):
        return False
    return type(a) is type(b) and bool(a == b)
