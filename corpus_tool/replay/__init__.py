"""Replay: the Runtime, the doubles fed from recordings, typed divergences, record mode."""

from __future__ import annotations

from corpus_tool.model.values import ModelResponse, ToolCall
from corpus_tool.replay.divergence import Divergence, DivergenceError
from corpus_tool.replay.runtime import Runtime, ToolError

__all__ = ["Divergence", "DivergenceError", "ModelResponse", "Runtime", "ToolCall", "ToolError"]
