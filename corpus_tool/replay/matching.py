"""Normalization and comparison: what counts as "the same call", and field diffs when not."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from corpus_tool.replay.divergence import MISSING, FieldDiff

# Request fields that change on every call without changing what the model is asked;
# corpus.yaml `replay.ignore_request_fields` adds to them.
DEFAULT_IGNORED = (
    "params.request_id",
    "params.user",
    "params.metadata",
    "params.stream",
    "params.timeout",
    "messages.*.id",
)
MAX_DIFFS = 20


def ignored_fields(configured: Iterable[str] | None) -> tuple[str, ...]:
    """The default ignored request fields plus the corpus's own, without duplicates."""
    return tuple(dict.fromkeys((*DEFAULT_IGNORED, *(configured or ()))))


def normalize(value: Any, ignored: Sequence[str]) -> Any:
    """A copy of `value` with every dotted path in `ignored` removed (`*` matches any item)."""
    for path in ignored:
        value = _drop(value, path.split("."))
    return value


def _drop(value: Any, parts: list[str]) -> Any:
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(value, Mapping):
        if head == "*":
            return {k: _drop(v, rest) for k, v in value.items()} if rest else {}
        if head not in value:
            return value
        if not rest:
            return {k: v for k, v in value.items() if k != head}
        return {**value, head: _drop(value[head], rest)}
    if isinstance(value, list) and (head == "*" or head.isdigit()):
        if not rest:
            return value
        return [_drop(v, rest) if head == "*" or int(head) == i else v for i, v in enumerate(value)]
    return value


def field_diff(expected: Any, actual: Any, path: str = "$") -> list[FieldDiff]:
    """Every differing leaf between two JSON-shaped values, in document order (at most 20)."""
    found: list[FieldDiff] = []
    _walk(expected, actual, path, found)
    return found[:MAX_DIFFS]


def _walk(expected: Any, actual: Any, path: str, found: list[FieldDiff]) -> None:
    if len(found) >= MAX_DIFFS:
        return
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key in dict.fromkeys([*expected, *actual]):
            _walk(expected.get(key, MISSING), actual.get(key, MISSING), f"{path}.{key}", found)
    elif isinstance(expected, list) and isinstance(actual, list):
        for i in range(max(len(expected), len(actual))):
            left = expected[i] if i < len(expected) else MISSING
            right = actual[i] if i < len(actual) else MISSING
            _walk(left, right, f"{path}[{i}]", found)
    elif not same(expected, actual):
        found.append(FieldDiff(path, expected, actual))


def same(left: Any, right: Any) -> bool:
    """Equal as JSON values: key order never matters, 1 equals 1.0, True is not 1."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)


def nearest(
    candidates: Iterable[dict[str, Any]], actual: Any, key: str
) -> tuple[dict[str, Any] | None, list[FieldDiff]]:
    """The recorded event whose `key` differs from `actual` in the fewest fields, and the diff."""
    best: tuple[dict[str, Any] | None, list[FieldDiff]] = (None, [])
    for event in candidates:
        diff = field_diff(event.get(key), actual)
        if best[0] is None or len(diff) < len(best[1]):
            best = (event, diff)
    return best


def candidate_summary(event: dict[str, Any]) -> dict[str, Any]:
    """What a divergence shows of a recorded event: seq, type, tool, arguments."""
    keys = ("seq", "type", "tool", "arguments", "model")
    return {k: event[k] for k in keys if k in event}
