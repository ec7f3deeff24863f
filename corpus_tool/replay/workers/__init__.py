"""The worker processes a replay runs in: their start, sandbox, wire protocol, pool and the
agent loader they run."""

from __future__ import annotations
