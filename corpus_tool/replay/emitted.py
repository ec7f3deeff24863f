"""Events the agent reports itself (`rt.emit`), checked into the trace model.

An agent's fields are not schema-checked data: a missing or mistyped field is the agent's
error (a ValueError at the `rt.emit` call, which fails its run), and a field the event type
does not know is kept under `extra`, never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corpus_tool.model.events import Event, event_from_doc

EMITTABLE = ("error", "state_change", "side_effect", "handoff", "retry")

# per type: field -> (required, accepted types); `error` is an object or "Type: message"
_FIELDS: dict[str, dict[str, tuple[bool, tuple[type, ...]]]] = {
    "error": {"error": (True, (dict, str)), "tool": (False, (str,)), "stack": (False, (str,))},
    "state_change": {"key": (True, (str,)), "value": (False, (object,))},
    "side_effect": {
        "kind": (True, (str,)),
        "target": (False, (str,)),
        "data": (False, (object,)),
    },
    "handoff": {"from": (False, (str,)), "to": (True, (str,))},
    "retry": {"of": (True, (int,)), "attempt": (False, (int,))},
}
_COMMON = {"node": (str,), "parent": (str, int), "duration_ms": (int, float), "truncated": (bool,)}


def emitted(event_type: str, seq: int, fields: Mapping[str, Any], timestamp: str) -> Event:
    """The event `rt.emit(event_type, **fields)` records; a ValueError names a bad field."""
    known = _FIELDS[event_type]
    doc: dict[str, Any] = {"seq": seq, "type": event_type}
    extra: dict[str, Any] = {}
    for name, value in fields.items():
        accepted = known[name][1] if name in known else _COMMON.get(name)
        if accepted is None:
            extra[name] = value
        elif value is not None and not _fits(value, accepted):
            raise ValueError(
                f"rt.emit({event_type!r}): `{name}` must be "
                f"{' or '.join(t.__name__ for t in accepted)}, not {type(value).__name__}"
            )
        else:
            doc[name] = value
    missing = [n for n, (required, _) in known.items() if required and doc.get(n) is None]
    if missing:
        raise ValueError(f"rt.emit({event_type!r}) needs {', '.join(missing)}")
    doc["timestamp"] = timestamp
    if extra:
        doc["extra"] = extra
    return event_from_doc(doc)


def _fits(value: Any, accepted: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in accepted and object not in accepted:
        return False  # True is an int to Python, not to JSON
    return isinstance(value, accepted)
