"""Comparing a model request with the recorded one, on what both sides know.

Recorders log what the agent never passed (provider defaults: temperature, top_p, max_tokens,
seeds) and omit what it did pass (most exports hold no tool definitions). So strict mode
compares the messages always, `tools` whenever the recording holds them, and any other field
only where both sides carry it; a field on one side only is a note on the case, never silently
dropped. `replay.request_fields: all` compares every field, one-sided ones included.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corpus_tool.model.events import ModelCallEvent, ModelRequest
from corpus_tool.model.field_diff import FieldDiff
from corpus_tool.replay.matching import diff, request_doc

SHARED, ALL_FIELDS = "shared", "all"
REQUEST_FIELDS = (SHARED, ALL_FIELDS)
"""`replay.request_fields`: compare the fields both sides carry (default), or all of them."""
RECORDING, AGENT = "recording", "agent"


@dataclass(frozen=True)
class OneSidedField:
    """A request field only one side carries: `carried_by` is `recording` or `agent`."""

    path: str
    carried_by: str
    value: Any


@dataclass(frozen=True)
class Comparison:
    """How a sent request differs from a recorded one, and what was not compared."""

    diff: tuple[FieldDiff, ...]
    one_sided: tuple[OneSidedField, ...] = ()


def compare(
    recorded: ModelRequest,
    sent: ModelRequest,
    ignored: Sequence[str],
    fields: str = SHARED,
    path: str = "$.request",
    unrecorded: Sequence[str] = (),
) -> Comparison:
    """The differences strict mode counts; with `fields="all"` every field counts.

    `unrecorded` names request fields the source never captured (a model call's `missing`,
    e.g. `messages` of a Responses-API span): they are one-sided, whatever `fields` says.
    """
    expected, actual = request_doc(recorded, ignored), request_doc(sent, ignored)
    lost = [k for k in unrecorded if k in actual]
    expected = {k: v for k, v in expected.items() if k not in unrecorded}
    notes = [OneSidedField(k, AGENT, actual.pop(k)) for k in lost]
    if fields == ALL_FIELDS:
        return Comparison(tuple(diff(expected, actual, path)), tuple(notes))
    left, right, one_sided = _shared(expected, actual)
    return Comparison(tuple(diff(left, right, path)), (*notes, *one_sided))


def _shared(
    recorded: Mapping[str, Any], sent: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], list[OneSidedField]]:
    left: dict[str, Any] = {}
    right: dict[str, Any] = {}
    one_sided: list[OneSidedField] = []
    for key in [*recorded, *(k for k in sent if k not in recorded)]:
        if key == "params":
            inner = _shared(recorded.get(key) or {}, sent.get(key) or {})
            left[key], right[key] = inner[0], inner[1]
            one_sided += [
                OneSidedField(f"params.{o.path}", o.carried_by, o.value) for o in inner[2]
            ]
        elif key in recorded and (key in sent or key in ("messages", "tools")):
            left[key] = recorded[key]  # messages always, tools whenever recorded
            if key in sent:
                right[key] = sent[key]
        elif key in recorded:
            one_sided.append(OneSidedField(key, RECORDING, recorded[key]))
        else:
            one_sided.append(OneSidedField(key, AGENT, sent[key]))
    return left, right, one_sided


def nearest_model(
    candidates: Iterable[ModelCallEvent], sent: ModelRequest, ignored: Sequence[str], fields: str
) -> tuple[ModelCallEvent | None, list[FieldDiff]]:
    """The recorded model call whose request differs least from `sent`, as strict compares."""
    best: tuple[ModelCallEvent | None, list[FieldDiff]] = (None, [])
    for event in candidates:
        found = list(compare(event.request, sent, ignored, fields, unrecorded=event.missing).diff)
        if best[0] is None or len(found) < len(best[1]):
            best = (event, found)
    return best


@dataclass(frozen=True)
class RequestNote:
    """A one-sided request field, and the steps where it was one-sided (a case-result note)."""

    path: str
    carried_by: str
    steps: tuple[int, ...]
    value: Any = None
    said: str | None = None
    """The line as a results document recorded it (`corpus regrade`): shown as it was."""

    def text(self) -> str:
        """One line a reader understands without the docs."""
        if self.said is not None:
            return self.said
        where = f"step{'s' if len(self.steps) > 1 else ''} {_steps(self.steps)}"
        if self.carried_by == RECORDING:
            return (
                f"request field {self.path}: the recording carries it ({_short(self.value)}), "
                f"the agent does not send it ({where}); not compared "
                "(replay.request_fields: all compares it)"
            )
        return (
            f"request field {self.path}: the agent sends it, the recording holds none "
            f"({where}); not compared"
        )

    def as_dict(self) -> dict[str, Any]:
        """The results document's form."""
        return {
            "path": self.path,
            "carried_by": self.carried_by,
            "steps": list(self.steps),
            "message": self.text(),
        }


def _steps(steps: tuple[int, ...]) -> str:
    shown = ", ".join(str(s) for s in steps[:5])
    return shown + (f" and {len(steps) - 5} more" if len(steps) > 5 else "")


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_MESSAGE = re.compile(r"^messages\[(\d+)\]")
_ROLES = {
    "system": "the system prompt",
    "developer": "the system prompt",
    "user": "a user message",
    "assistant": "an assistant message",
    "tool": "a tool result",
}


def field_name(item: FieldDiff, recorded: ModelRequest) -> str:
    """`messages[0].content (the system prompt)`, `temperature`, `model`."""
    name = item.path.removeprefix("$.request.").removeprefix("$.")
    found = _MESSAGE.match(name)
    if found is None:
        return name
    index = int(found.group(1))
    message = recorded.messages[index] if index < len(recorded.messages) else None
    role = message.get("role") if isinstance(message, Mapping) else None
    return f"{name} ({_ROLES[role]})" if role in _ROLES else name


def ignorable(item: FieldDiff) -> str:
    """The dotted path `replay.ignore_request_fields` takes for a differing field."""
    name = item.path.removeprefix("$.request.").removeprefix("$.")
    head = re.split(r"[.\[]", name, maxsplit=1)[0]
    if head == "params":
        return ".".join(re.split(r"[.\[]", name)[:2])
    return head


def fix(found: Sequence[FieldDiff]) -> str:
    """The one-line fix that applies to a ModelRequest divergence."""
    heads = list(dict.fromkeys(ignorable(d) for d in found))
    if "messages" in heads:
        return (
            "if the prompt changed on purpose, re-record the case "
            "(`corpus add --force` a new incident), or replay it with --mode lenient"
        )
    if "model" in heads:
        return "if the agent now asks another model on purpose, re-record the case with it"
    shown = ", ".join(heads)
    return (
        f"if {shown} does not change what the model is asked, add "
        f"`ignore_request_fields: [{shown}]` under `replay:` in corpus.yaml; "
        "if it changed on purpose, re-record the case"
    )
