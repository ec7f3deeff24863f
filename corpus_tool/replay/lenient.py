"""Lenient replay: tool results found by tool name and arguments wherever they are recorded;
model requests are not compared."""

from __future__ import annotations

from typing import Any

from corpus_tool.model.events import ModelRequest
from corpus_tool.model.field_diff import same
from corpus_tool.replay.matching import nearest_tool
from corpus_tool.replay.runtime import ModelAnswer, ToolAnswer
from corpus_tool.replay.sources import ReplaySource, tool_divergence


class LenientSource(ReplaySource):
    """Answers model calls in order and tool calls by (name, arguments)."""

    def model(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        fresh = next((m for m in self.recording.models if not self._was_used(m)), None)
        if fresh is not None:
            return self._model_answer(fresh)
        return self._continue(request, model, step)

    def tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer:
        same_name = self.recording.tools_named(name)
        matches = [c for c in same_name if same(dict(c.arguments), arguments)]
        fresh = [c for c in matches if not self._was_used(c)]
        if fresh or matches:  # a repeated read gets the latest recorded answer again
            return self._tool_answer(fresh[0] if fresh else matches[-1], arguments, step)
        if name in self._stubs:
            return self._stub(name, arguments, step, "")
        kind = "ToolArguments" if same_name else "ToolName"
        near, _ = nearest_tool(same_name or self.recording.tools, arguments)
        raise tool_divergence(kind, near, name, arguments, step)
