"""corpus-tool: incident traces as a regression corpus kept in git."""

from __future__ import annotations

from typing import TYPE_CHECKING

from corpus_tool.version import __version__

if TYPE_CHECKING:
    from corpus_tool.model.values import ModelResponse, ToolCall, Usage
    from corpus_tool.replay.native_out import RecordMeta
    from corpus_tool.replay.provider import ProviderError
    from corpus_tool.replay.record import ModelFn, ToolFn, record
    from corpus_tool.replay.runtime import Runtime, ToolError

__all__ = [
    "ModelFn",
    "ModelResponse",
    "ProviderError",
    "RecordMeta",
    "Runtime",
    "ToolCall",
    "ToolError",
    "ToolFn",
    "Usage",
    "__version__",
    "record",
]

# The public API is imported on first use: `corpus --help`, `corpus validate` and the other
# commands that never replay do not pay for the replay runtime.
_LAZY = {
    "Runtime": "corpus_tool.replay.runtime",
    "ModelResponse": "corpus_tool.model.values",
    "ToolCall": "corpus_tool.model.values",
    "Usage": "corpus_tool.model.values",
    "ProviderError": "corpus_tool.replay.provider",
    "ToolError": "corpus_tool.replay.runtime",
    "record": "corpus_tool.replay.record",
    "RecordMeta": "corpus_tool.replay.native_out",
    "ModelFn": "corpus_tool.replay.record",
    "ToolFn": "corpus_tool.replay.record",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'corpus_tool' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
