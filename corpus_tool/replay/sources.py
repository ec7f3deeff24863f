"""What the strict and lenient sources share: answers from events, stubs and continuation,
and the divergences they raise.

Nothing here reaches a real model or tool: a call the recording (or expected.yaml's stubs
and continuation) cannot answer raises a typed divergence.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from corpus_tool.io.files import canonical_json
from corpus_tool.model.events import ModelCallEvent, ModelRequest, ToolCallEvent
from corpus_tool.model.field_diff import FieldDiff, same
from corpus_tool.model.values import ABSENT, ModelResponse, ToolCall
from corpus_tool.replay.divergence import Divergence, DivergenceError
from corpus_tool.replay.matching import RecordedCall, candidate_summary, diff, nearest_tool
from corpus_tool.replay.provider import recorded_error
from corpus_tool.replay.recording import Recording, Script
from corpus_tool.replay.requests import SHARED, OneSidedField, RequestNote, nearest_model
from corpus_tool.replay.runtime import ModelAnswer, ToolAnswer


class ReplaySource:
    """A replay source's shared state: the recording, the script, what has been used."""

    def __init__(
        self,
        recording: Recording,
        script: Script,
        ignored: Sequence[str] = (),
        fields: str = SHARED,
    ):
        self.recording = recording
        self._stubs = script.stubs
        self._continuation = deque(script.continuation)
        self._ignored = ignored
        self._fields = fields  # replay.request_fields: shared | all
        self._used: set[int] = set()  # id() of the recorded calls consumed
        self._one_sided: dict[tuple[str, str], tuple[list[int], object]] = {}

    def unused(self) -> list[RecordedCall]:
        """Recorded calls the replay never consumed, in recorded order."""
        return [c for c in self.recording.calls if not self._was_used(c)]

    def stubbed(self, tool: str) -> bool:
        """Whether expected.yaml's stubs answer calls of `tool`."""
        return tool in self._stubs

    def notes(self) -> tuple[RequestNote, ...]:
        """Request fields one side carried, each with the steps where it did (sorted)."""
        return tuple(
            RequestNote(path, side, tuple(steps), value)
            for (path, side), (steps, value) in sorted(self._one_sided.items())
        )

    def _note(self, one_sided: Sequence[OneSidedField], step: int) -> None:
        for item in one_sided:
            steps, _ = self._one_sided.setdefault((item.path, item.carried_by), ([], item.value))
            steps.append(step)

    def _was_used(self, call: RecordedCall) -> bool:
        return id(call) in self._used

    def _model_answer(self, event: ModelCallEvent) -> ModelAnswer:
        self._used.add(id(event))
        return ModelAnswer(
            event.response,
            model=event.model,
            duration_ms=event.duration_ms,
            usage=event.usage,
            error=recorded_error(event.extra),
        )

    def _continue(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        if self._continuation:
            scripted = self._continuation.popleft()
            calls = tuple(
                ToolCall(c.id or f"cont-{step}-{i}", c.name, dict(c.arguments))
                for i, c in enumerate(scripted.tool_calls, 1)
            )
            response = ModelResponse(scripted.content, calls)
            return ModelAnswer(response, model=model, origin="continuation")
        raise self._extra_model(request, step)

    def _tool_answer(
        self, event: ToolCallEvent, arguments: dict[str, Any], step: int
    ) -> ToolAnswer:
        if not event.answered:
            if event.tool in self._stubs:  # a lost answer, supplied by the reviewer
                self._used.add(id(event))
                return self._stub(event.tool, arguments, step, "")
            raise _lost_answer(event, arguments, step)
        self._used.add(id(event))
        key = arguments.get("idempotency_key", arguments.get("idempotencyKey"))
        return ToolAnswer(
            result=event.result if event.error is None else None,
            error=event.error,
            duration_ms=event.duration_ms,
            egress=event.egress,
            idempotency_key=key if key is not None else event.idempotency_key,
        )

    def _stub(self, name: str, arguments: dict[str, Any], step: int, why: str) -> ToolAnswer:
        stub = self._stubs.get(name)
        if stub is None:
            count = len(self.recording.tools_named(name))
            raise self._extra_call(
                name,
                arguments,
                step,
                f"{why} and expected.yaml has no stub for {name}",
                {"calls": count},
            )
        key = arguments.get("idempotency_key")
        return ToolAnswer(
            result=stub.result,
            error=stub.error,
            idempotency_key=key if isinstance(key, str) else None,
            origin="stub",
        )

    def _extra_call(
        self, name: str, arguments: dict[str, Any], step: int, why: str, expected: Any
    ) -> DivergenceError:
        """A ToolCallCount divergence, showing the nearest recorded call of that tool."""
        near, found = nearest_tool(self.recording.tools_named(name), arguments)
        return DivergenceError(
            Divergence(
                "ToolCallCount",
                step,
                f"{self._count(name, arguments)}; {why}",
                expected=expected,
                actual={"tool": name, "arguments": arguments},
                candidate=candidate_summary(near) if near else None,
                diff=tuple(found),
            )
        )

    def _count(self, name: str, arguments: dict[str, Any]) -> str:
        """`a second call of X (a repeat of seq 2); the recording has one`."""
        recorded = self.recording.tools_named(name)
        if not recorded:
            return f"an extra call of {name}: the recording never calls it"
        used = [c for c in recorded if self._was_used(c)]
        if not used:
            return f"{name} called before its turn: the recording calls it at seq {recorded[0].seq}"
        twin = next((c for c in used if same(dict(c.arguments), arguments)), None)
        repeat = f" (a repeat of seq {twin.seq}, same arguments)" if twin is not None else ""
        return (
            f"{_nth_call(len(used) + 1, name)}{repeat}; the recording has {_number(len(recorded))}"
        )

    def _exhausted(self, name: str) -> bool:
        """The recording calls `name`, and every one of those calls is used: a call too many."""
        recorded = self.recording.tools_named(name)
        return bool(recorded) and all(self._was_used(c) for c in recorded)

    def _extra_model(self, request: ModelRequest, step: int) -> DivergenceError:
        models = self.recording.models
        near, found = nearest_model(models, request, self._ignored, self._fields)
        return DivergenceError(
            Divergence(
                "ModelRequest",
                step,
                f"an extra model call: the recording holds {len(models)} and expected.yaml's "
                "continuation has no answer left",
                expected={"model_calls": len(models)},
                actual={"fields": sorted(request.to_doc())},
                candidate=candidate_summary(near) if near else None,
                diff=tuple(found),
            )
        )


def tool_divergence(
    kind: str, recorded: ToolCallEvent | None, name: str, arguments: dict[str, Any], step: int
) -> DivergenceError:
    """A ToolName or ToolArguments divergence against the recorded call (or none at all)."""
    if recorded is None:
        message = f"the recording never calls a tool; the agent called {name}"
        return DivergenceError(Divergence(kind, step, message, None, {"tool": name}))
    actual = {"tool": name, "arguments": arguments}
    expected = {"tool": recorded.tool, "arguments": dict(recorded.arguments)}
    found = diff(expected, actual)
    where = f"seq {recorded.seq}"
    if kind == "ToolName":
        message = f"the agent called {name}; the recording calls {recorded.tool} ({where})"
    else:
        changed = ", ".join(_changed(d) for d in found[:3]) + (", ..." if len(found) > 3 else "")
        message = f"{name} called with other arguments than recorded ({where}): {changed}"
    return DivergenceError(
        Divergence(kind, step, message, expected, actual, candidate_summary(recorded), tuple(found))
    )


def _lost_answer(event: ToolCallEvent, arguments: dict[str, Any], step: int) -> DivergenceError:
    cut = ", truncated at capture" if event.truncated else ""
    return DivergenceError(
        Divergence(
            "ToolResult",
            step,
            f"the recording holds no result or error for {event.tool} "
            f"(seq {event.seq}{cut}); add a stub in expected.yaml "
            "or keep the case known_unknown",
            expected={"seq": event.seq, "tool": event.tool},
            actual={"tool": event.tool, "arguments": arguments},
            candidate=candidate_summary(event),
        )
    )


_ORDINALS = ("first", "second", "third", "fourth", "fifth")
_NUMBERS = ("none", "one", "two", "three", "four", "five")


def _nth_call(n: int, name: str) -> str:
    """`a second call of X`, or `call 7 of X` past the words."""
    return f"a {_ORDINALS[n - 1]} call of {name}" if n <= len(_ORDINALS) else f"call {n} of {name}"


def _number(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def _changed(item: FieldDiff) -> str:
    """`address "12 ELM ST" (recorded "12 Elm St")`, the way a reader names a changed value."""
    name = item.path.removeprefix("$.arguments.").removeprefix("$.")
    if item.actual is ABSENT:
        return f"{name} left out (recorded {_shown(item.expected)})"
    if item.expected is ABSENT:
        return f"{name} {_shown(item.actual)} added"
    return f"{name} {_shown(item.actual)} (recorded {_shown(item.expected)})"


def _shown(value: Any) -> str:
    text = canonical_json(value)
    return text if len(text) <= 60 else text[:57] + "..."
