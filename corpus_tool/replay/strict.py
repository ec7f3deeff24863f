"""Strict replay: the n-th model or tool call must match the n-th recorded one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from corpus_tool.model.diff import FieldDiff, same
from corpus_tool.model.events import ModelCallEvent, ModelRequest, ToolCallEvent
from corpus_tool.replay.divergence import Divergence, DivergenceError
from corpus_tool.replay.matching import candidate_summary, diff, nearest_model, request_doc
from corpus_tool.replay.runtime import ModelAnswer, ToolAnswer
from corpus_tool.replay.sources import Source, tool_divergence


class StrictSource(Source):
    """Answers calls in recorded order; a call out of place is a divergence."""

    _cursor = 0

    def model(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        recorded = self._next()
        if recorded is None:
            return self._continue(request, model, step)
        if isinstance(recorded, ToolCallEvent):
            raise _skipped(recorded, step, "the agent asked the model instead")
        found = self._request_diff(recorded, request, model)
        if found:
            raise self._request_divergence(recorded, request, model, found, step)
        self._cursor += 1
        return self._model_answer(recorded)

    def tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer:
        recorded = self._next()
        if recorded is None:
            return self._stub(name, arguments, step, "the recording has no calls left")
        if isinstance(recorded, ModelCallEvent):
            count = len(self.recording.tools_named(name))
            raise self._extra_call(
                name,
                arguments,
                step,
                f"the recording asks the model here (seq {recorded.seq}) "
                f"and calls {name} {count} time(s) in all",
                {"seq": recorded.seq, "type": "model_call"},
            )
        if recorded.tool != name:
            raise self._out_of_order(
                tool_divergence("ToolName", recorded, name, arguments, step), name, arguments
            )
        if not same(dict(recorded.arguments), arguments):
            raise tool_divergence("ToolArguments", recorded, name, arguments, step)
        self._cursor += 1
        return self._tool_answer(recorded, arguments, step)

    def _next(self) -> ModelCallEvent | ToolCallEvent | None:
        calls = self.recording.calls
        return calls[self._cursor] if self._cursor < len(calls) else None

    def _request_diff(
        self, recorded: ModelCallEvent, request: ModelRequest, model: str | None
    ) -> list[FieldDiff]:
        expected = request_doc(recorded.request, self._ignored)
        found = diff(expected, request_doc(request, self._ignored), "$.request")
        if model is not None and model != recorded.model:
            found.insert(0, FieldDiff("$.model", recorded.model, model))
        return found

    def _request_divergence(
        self,
        recorded: ModelCallEvent,
        request: ModelRequest,
        model: str | None,
        found: list[FieldDiff],
        step: int,
    ) -> DivergenceError:
        actual = request_doc(request, self._ignored)
        near, _ = nearest_model(self.recording.models, actual, self._ignored)
        if (
            near is not None
            and near is not recorded
            and not self._request_diff(near, request, model)
        ):
            note = f"; it equals the recorded request at seq {near.seq} (out of order)"
        else:
            note, near = "", recorded
        return DivergenceError(
            Divergence(
                "ModelRequest",
                step,
                f"the model request differs from the recorded one at seq {recorded.seq} "
                f"in {len(found)} field(s){note}",
                expected={"seq": recorded.seq},
                actual={"fields": [d.path for d in found]},
                candidate=candidate_summary(near),
                diff=tuple(found),
            )
        )

    def _out_of_order(
        self, error: DivergenceError, name: str, arguments: dict[str, Any]
    ) -> DivergenceError:
        """Say so when the call is recorded later: the order changed, not the call."""
        later = [
            c
            for c in self.recording.calls[self._cursor :]
            if isinstance(c, ToolCallEvent)
            and c.tool == name
            and same(dict(c.arguments), arguments)
        ]
        if not later:
            return error
        d = error.divergence
        note = f"; {name} with these arguments is recorded later, at seq {later[0].seq} "
        note += "(a changed order: lenient mode tolerates it)"
        return DivergenceError(replace(d, message=d.message + note))


def _skipped(recorded: ToolCallEvent, step: int, instead: str) -> DivergenceError:
    return DivergenceError(
        Divergence(
            "UnusedRecording",
            step,
            f"the recording calls {recorded.tool} here (seq {recorded.seq}); {instead}, "
            "so the recorded call would be left unused (a skipped tool call)",
            expected=candidate_summary(recorded),
            actual={"type": "model_call"},
            candidate=candidate_summary(recorded),
        )
    )
