"""One provider call as a recording proxy saw it (`corpus record`): what the agent sent, what
came back. The proxy (`replay/doubles/proxy.py`) makes them; `ingest/exchanges.py` turns them
into a native incident."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RecordedExchange:
    """One provider call as it went: the API, the path under its base URL, both bodies."""

    api: str
    """`openai` or `anthropic`."""
    path: str
    request: Any
    status: int
    response: Any = None
    """The JSON answer (None for a stream, or a body that is no JSON)."""
    events: tuple[Any, ...] = ()
    """The `data:` events of an event-stream answer, parsed, in order."""
    started_at: float = 0.0
    """When the request arrived, in seconds since the epoch."""
    duration_ms: float = 0.0
