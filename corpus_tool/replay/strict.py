"""Strict replay: the n-th model or tool call must match the n-th recorded one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from corpus_tool.model.events import ModelCallEvent, ModelRequest, ToolCallEvent
from corpus_tool.model.field_diff import FieldDiff, same
from corpus_tool.replay.divergence import Divergence, DivergenceError
from corpus_tool.replay.matching import candidate_summary
from corpus_tool.replay.requests import compare, field_name, fix, nearest_model
from corpus_tool.replay.runtime import ModelAnswer, ToolAnswer
from corpus_tool.replay.sources import ReplaySource, tool_divergence


class StrictSource(ReplaySource):
    """Answers calls in recorded order; a call out of place is a divergence."""

    _cursor = 0

    def model(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        recorded = self._next()
        if recorded is None:
            return self._continue(request, model, step)
        if isinstance(recorded, ToolCallEvent):
            raise _skipped(recorded, step, "the agent asked the model instead")
        found = self._request_diff(recorded, request, model, step)
        if found:
            raise self._request_divergence(recorded, request, model, found, step)
        self._cursor += 1
        return self._model_answer(recorded)

    def tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer:
        recorded = self._next()
        if recorded is None:
            return self._stub(name, arguments, step, "the recording has no calls left")
        if isinstance(recorded, ModelCallEvent) or (
            recorded.tool != name and self._exhausted(name)
        ):
            here = (
                "asks the model"
                if isinstance(recorded, ModelCallEvent)
                else f"calls {recorded.tool}"
            )
            raise self._extra_call(
                name,
                arguments,
                step,
                f"the recording {here} at this step (seq {recorded.seq})",
                {"seq": recorded.seq, "type": recorded.type},
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
        self,
        recorded: ModelCallEvent,
        request: ModelRequest,
        model: str | None,
        step: int | None = None,
    ) -> list[FieldDiff]:
        """What differs, as strict counts it; with a step, one-sided fields become notes."""
        compared = compare(
            recorded.request, request, self._ignored, self._fields, unrecorded=recorded.missing
        )
        if step is not None:
            self._note(compared.one_sided, step)
        found = list(compared.diff)
        if model is not None and recorded.model is not None and model not in _model_ids(recorded):
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
        near, _ = nearest_model(self.recording.models, request, self._ignored, self._fields)
        if (
            near is not None
            and near is not recorded
            and not self._request_diff(near, request, model)
        ):
            note = f"; it equals the recorded request at seq {near.seq} (out of order)"
        else:
            note, near = "", recorded
        names = [field_name(d, recorded.request) for d in found[:3]]
        more = f" and {len(found) - 3} more field(s)" if len(found) > 3 else ""
        return DivergenceError(
            Divergence(
                "ModelRequest",
                step,
                f"the model request differs from the recorded one at seq {recorded.seq} "
                f"in {', '.join(names)}{more}{note}; {fix(found)}",
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


def _model_ids(recorded: ModelCallEvent) -> tuple[str | None, ...]:
    """The ids an agent may name for a recorded call: the model that answered, and the one
    asked for where the recorder kept both (OTel GenAI: `gpt-4.1-mini` answered by
    `gpt-4.1-mini-2025-04-14`; frameworks name the model the way it was asked for)."""
    asked = (recorded.extra or {}).get("requested_model")
    return (recorded.model, asked) if isinstance(asked, str) else (recorded.model,)


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
