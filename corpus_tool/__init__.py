"""corpus-tool: incident traces as a regression corpus kept in git."""

from __future__ import annotations

__version__ = "0.1.0"

from corpus_tool.replay.runtime import Runtime
from corpus_tool.replay.values import ModelResponse, ToolCall, ToolError

__all__ = ["ModelResponse", "Runtime", "ToolCall", "ToolError", "__version__", "record"]


def __getattr__(name: str) -> object:
    # record mode is imported on first use: most users of the package only replay
    if name == "record":
        from corpus_tool.replay.record import record

        return record
    raise AttributeError(f"module 'corpus_tool' has no attribute {name!r}")
