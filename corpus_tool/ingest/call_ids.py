"""Call ids a model reuses across turns, made unique in a run's events (`call_0`, `call_0~2`).

Some model servers restart tool-call ids in every response (`call_0` each turn). A tool_call
answers the latest request of its id; the n-th request of an id becomes `<id>~n`. The model
requests' own messages are renamed the same way (the n-th assistant message asking an id, and
the tool messages after it), so the conversation an agent sends under replay, which echoes the
ids it was given, matches the recorded one.
"""

from __future__ import annotations

from typing import Any


def unique_call_ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events in trace form with reused call ids suffixed `~N`; renamed events keep the id
    as recorded in `extra.recorded_call_id`."""
    ids = CallIds()
    for event in events:
        ids.rename(event)
    return events


class CallIds:
    """The renaming of unique_call_ids one event at a time, in order (a streamed run): what
    it remembers is two entries per requested call id."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}
        self.latest: dict[str, str] = {}

    def rename(self, event: dict[str, Any]) -> None:
        """`event` (in trace form) with its reused call ids renamed, in place."""
        if event["type"] == "model_call":
            event["request"]["messages"] = _renamed_messages(event["request"].get("messages"))
            for call in event["response"].get("tool_calls") or []:
                _rename(call, "id", self.seen, self.latest)
        elif event["type"] == "tool_call":
            original = event.get("call_id")
            latest = self.latest
            if isinstance(original, str) and latest.get(original, original) != original:
                event["call_id"] = latest[original]
                event.setdefault("extra", {})["recorded_call_id"] = original


def _name(original: str, n: int) -> str:
    return original if n == 1 else f"{original}~{n}"


def _rename(holder: dict[str, Any], key: str, seen: dict[str, int], latest: dict[str, str]) -> None:
    original = holder.get(key)
    if not isinstance(original, str):
        return
    seen[original] = seen.get(original, 0) + 1
    latest[original] = holder[key] = _name(original, seen[original])


def _renamed_messages(messages: Any) -> Any:
    """A request's conversation with the ids its assistant messages reuse renamed."""
    if not isinstance(messages, list) or not _reuses_ids(messages):
        return messages  # nothing to rename (most conversations): the list as it is
    seen: dict[str, int] = {}
    latest: dict[str, str] = {}
    out: list[Any] = []
    for msg in messages:
        if not isinstance(msg, dict):
            out.append(msg)
            continue
        msg = dict(msg)
        if isinstance(msg.get("tool_calls"), list):
            msg["tool_calls"] = [dict(c) if isinstance(c, dict) else c for c in msg["tool_calls"]]
            for call in msg["tool_calls"]:
                if isinstance(call, dict):
                    _rename(call, "id", seen, latest)
        answered = msg.get("tool_call_id")
        if isinstance(answered, str) and answered in latest:
            msg["tool_call_id"] = latest[answered]
        out.append(msg)
    return out


def _reuses_ids(messages: list[Any]) -> bool:
    """Whether two assistant messages of a conversation ask under one call id (only then
    does _renamed_messages rename anything)."""
    asked: set[Any] = set()
    for msg in messages:
        calls = msg.get("tool_calls") if isinstance(msg, dict) else None
        if not isinstance(calls, list):
            continue
        for call in calls:
            name = call.get("id") if isinstance(call, dict) else None
            if isinstance(name, str):
                if name in asked:
                    return True
                asked.add(name)
    return False
