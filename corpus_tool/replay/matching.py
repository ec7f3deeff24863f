"""Normalization and the nearest recorded call: what counts as "the same call" in replay."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from corpus_tool.model.events import ModelCallEvent, ModelRequest, ToolCallEvent
from corpus_tool.model.field_diff import FieldDiff, field_diff

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
RecordedCall = ModelCallEvent | ToolCallEvent


def ignored_fields(configured: Iterable[str] | None) -> tuple[str, ...]:
    """The default ignored request fields plus the corpus's own, without duplicates."""
    return tuple(dict.fromkeys((*DEFAULT_IGNORED, *(configured or ()))))


def normalize(value: Any, ignored: Sequence[str]) -> Any:
    """A copy of `value` with every dotted path in `ignored` removed (`*` matches any item)."""
    for path in ignored:
        value = _drop(value, path.split("."))
    return value


def request_doc(request: ModelRequest, ignored: Sequence[str]) -> dict[str, Any]:
    """A model request as compared: its document form, ignored fields removed."""
    doc: dict[str, Any] = normalize(request.to_doc(), ignored)
    if isinstance(doc.get("messages"), list):
        doc["messages"] = [_no_blank(m) for m in doc["messages"]]
    return doc


def _no_blank(message: Any) -> Any:
    """A message whose content is `""` as one whose content is null: no provider tells them
    apart, and exporters differ (OpenInference drops an empty content, LangChain's own tracer
    keeps the `""` of an assistant message that only calls tools)."""
    if isinstance(message, Mapping) and message.get("content") == "":
        return {**message, "content": None}
    return message


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


def diff(expected: Any, actual: Any, path: str = "$") -> list[FieldDiff]:
    """The field diff replay shows: document order, at most MAX_DIFFS differences."""
    return field_diff(expected, actual, path, limit=MAX_DIFFS)


def nearest_tool(
    candidates: Iterable[ToolCallEvent], arguments: Any
) -> tuple[ToolCallEvent | None, list[FieldDiff]]:
    """The recorded tool call whose arguments differ from `arguments` in the fewest fields."""
    best: tuple[ToolCallEvent | None, list[FieldDiff]] = (None, [])
    for event in candidates:
        found = diff(dict(event.arguments), arguments)
        if best[0] is None or len(found) < len(best[1]):
            best = (event, found)
    return best


def candidate_summary(event: RecordedCall) -> dict[str, Any]:
    """What a divergence shows of a recorded call: seq, type, tool and arguments, or model."""
    if isinstance(event, ToolCallEvent):
        return {
            "seq": event.seq,
            "type": event.type,
            "tool": event.tool,
            "arguments": dict(event.arguments),
        }
    return {"seq": event.seq, "type": event.type, "model": event.model}
