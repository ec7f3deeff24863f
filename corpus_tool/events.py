"""Values inside trace events that every stage reads the same way: timestamps and errors."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 timestamp (with `Z` accepted) as an aware or naive datetime, or None."""
    if not isinstance(value, str):
        return None
    try:
        # Python 3.10's fromisoformat does not read a `Z` suffix
        return datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None


def parse_error(raw: Any) -> dict[str, str]:
    """`"Type: message"`, `{type, message}` or anything else, as `{type, message}`."""
    if isinstance(raw, dict):
        return {"type": str(raw.get("type") or "Error"), "message": str(raw.get("message") or "")}
    text = str(raw)
    head, sep, tail = text.partition(":")
    if sep and head and " " not in head.strip():
        return {"type": head.strip(), "message": tail.strip()}
    return {"type": "Error", "message": text}
