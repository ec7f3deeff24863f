"""The model and tool doubles of replay: answers from the recording, stubs, continuation.

Nothing here reaches a real model or tool: a call the recording (or expected.yaml's stubs and
continuation) cannot answer raises a typed divergence.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from corpus_tool.replay.divergence import Divergence, DivergenceError, FieldDiff
from corpus_tool.replay.matching import candidate_summary, field_diff, nearest, normalize, same
from corpus_tool.replay.runtime import ModelAnswer, ModelRequest, ToolAnswer
from corpus_tool.replay.values import ModelResponse, ToolCall, plain, response_from

CALL_TYPES = ("model_call", "tool_call")


@dataclass(frozen=True)
class Script:
    """What expected.yaml adds past the recording: tool stubs and scripted model answers."""

    stubs: Mapping[str, Mapping[str, Any]]
    continuation: Sequence[Mapping[str, Any]]


class ReplaySource:
    """Answers calls from a trace's recorded events, strictly in order or leniently by key."""

    def __init__(
        self, events: Sequence[dict[str, Any]], mode: str, ignored: Sequence[str], script: Script
    ):
        self.calls = [e for e in events if e.get("type") in CALL_TYPES]
        self.mode = mode
        self._ignored = ignored
        self._stubs = script.stubs
        self._continuation = deque(script.continuation)
        self._used: list[int] = []  # indices into self.calls, in the order consumed
        self._cursor = 0

    # -- model ---------------------------------------------------------------------------
    def model(self, request: ModelRequest, step: int) -> ModelAnswer:
        if self.mode == "strict":
            return self._strict_model(request, step)
        index = self._next_unused("model_call")
        if index is not None:
            return self._model_answer(index)
        return self._continue(request, step)

    def _strict_model(self, request: ModelRequest, step: int) -> ModelAnswer:
        if self._cursor >= len(self.calls):
            return self._continue(request, step)
        recorded = self.calls[self._cursor]
        if recorded["type"] == "tool_call":
            raise _skipped(recorded, step, "the agent asked the model instead")
        diff = self._request_diff(recorded, request)
        if diff:
            raise self._request_divergence(recorded, request, diff, step)
        self._cursor += 1
        return self._model_answer(self._cursor - 1)

    def _request_diff(self, recorded: dict[str, Any], request: ModelRequest) -> list[FieldDiff]:
        expected = normalize(plain(recorded.get("request") or {}), self._ignored)
        diff = field_diff(expected, normalize(request.request, self._ignored), "$.request")
        if request.model is not None and request.model != recorded.get("model"):
            diff.insert(0, FieldDiff("$.model", recorded.get("model"), request.model))
        return diff

    def _request_divergence(
        self, recorded: dict[str, Any], request: ModelRequest, diff: list[FieldDiff], step: int
    ) -> DivergenceError:
        models = [c for c in self.calls if c["type"] == "model_call"]
        near, _ = nearest(models, normalize(request.request, self._ignored), "request")
        if near is not None and near is not recorded and not self._request_diff(near, request):
            note = f"; it equals the recorded request at seq {near['seq']} (out of order)"
        else:
            note, near = "", recorded
        return DivergenceError(
            Divergence(
                "ModelRequest",
                step,
                f"the model request differs from the recorded one at seq {recorded['seq']} "
                f"in {len(diff)} field(s){note}",
                expected={"seq": recorded["seq"]},
                actual={"fields": [d.path for d in diff]},
                candidate=candidate_summary(near),
                diff=tuple(diff),
            )
        )

    def _model_answer(self, index: int) -> ModelAnswer:
        self._used.append(index)
        event = self.calls[index]
        return ModelAnswer(
            response_from(event.get("response") or {}),
            model=event.get("model"),
            duration_ms=event.get("duration_ms"),
        )

    def _continue(self, request: ModelRequest, step: int) -> ModelAnswer:
        if self._continuation:
            scripted = self._continuation.popleft()
            calls = [
                ToolCall(
                    c.get("id") or f"cont-{step}-{i}", c["name"], plain(c.get("arguments") or {})
                )
                for i, c in enumerate(scripted.get("tool_calls") or [], 1)
            ]
            response = ModelResponse(scripted.get("content"), tuple(calls))
            return ModelAnswer(response, model=request.model, origin="continuation")
        models = [c for c in self.calls if c["type"] == "model_call"]
        return _raise_extra_model(models, request, step)

    # -- tools ---------------------------------------------------------------------------
    def tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer:
        if self.mode == "strict":
            return self._strict_tool(name, arguments, step)
        return self._lenient_tool(name, arguments, step)

    def _strict_tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer:
        if self._cursor >= len(self.calls):
            return self._stub(name, arguments, step, "the recording has no calls left")
        recorded = self.calls[self._cursor]
        if recorded["type"] == "model_call":
            raise self._extra_tool(name, arguments, step, recorded)
        if recorded["tool"] != name:
            error = _tool_divergence("ToolName", recorded, name, arguments, step)
            raise self._out_of_order(error, name, arguments)
        if not same(recorded.get("arguments"), arguments):
            raise _tool_divergence("ToolArguments", recorded, name, arguments, step)
        self._cursor += 1
        return self._tool_answer(self._cursor - 1, arguments, step)

    def _lenient_tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer:
        matches = [
            i
            for i, c in enumerate(self.calls)
            if c["type"] == "tool_call" and c["tool"] == name and same(c["arguments"], arguments)
        ]
        fresh = [i for i in matches if i not in self._used]
        if fresh or matches:  # a repeated read gets the latest recorded answer again
            return self._tool_answer(fresh[0] if fresh else matches[-1], arguments, step)
        if name in self._stubs:
            return self._stub(name, arguments, step, "")
        same_name = [c for c in self.calls if c.get("tool") == name]
        kind = "ToolArguments" if same_name else "ToolName"
        pool = same_name or [c for c in self.calls if c["type"] == "tool_call"]
        near, _ = nearest(pool, arguments, "arguments")
        raise _tool_divergence(kind, near, name, arguments, step)

    def _tool_answer(self, index: int, arguments: dict[str, Any], step: int) -> ToolAnswer:
        event = self.calls[index]
        if "result" not in event and "error" not in event:
            if event["tool"] in self._stubs:  # a lost answer, supplied by the reviewer
                self._used.append(index)
                return self._stub(event["tool"], arguments, step, "")
            raise DivergenceError(
                Divergence(
                    "ToolResult",
                    step,
                    f"the recording holds no result or error for {event['tool']} "
                    f"(seq {event['seq']}{_cut(event)}); add a stub in expected.yaml "
                    "or keep the case known_unknown",
                    expected={"seq": event["seq"], "tool": event["tool"]},
                    actual={"tool": event["tool"], "arguments": arguments},
                    candidate=candidate_summary(event),
                )
            )
        self._used.append(index)
        key = arguments.get("idempotency_key", arguments.get("idempotencyKey"))
        return ToolAnswer(
            result=event.get("result"),
            error=event.get("error"),
            duration_ms=event.get("duration_ms"),
            egress=event.get("egress"),
            idempotency_key=key if key is not None else event.get("idempotency_key"),
        )

    def _stub(self, name: str, arguments: dict[str, Any], step: int, why: str) -> ToolAnswer:
        stub = self._stubs.get(name)
        if stub is None:
            count = self._count(name)
            raise self._extra_call(
                name,
                arguments,
                step,
                f"{why}, the recording calls it {count} time(s), "
                "and expected.yaml has no stub for it",
                {"calls": count},
            )
        key = arguments.get("idempotency_key")
        return ToolAnswer(
            result=plain(stub.get("result")),
            error=stub.get("error"),
            idempotency_key=key if isinstance(key, str) else None,
            origin="stub",
        )

    def _extra_tool(
        self, name: str, arguments: dict[str, Any], step: int, recorded: dict[str, Any]
    ) -> DivergenceError:
        return self._extra_call(
            name,
            arguments,
            step,
            f"the recording asks the model here (seq {recorded['seq']}) "
            f"and calls {name} {self._count(name)} time(s) in all",
            {"seq": recorded["seq"], "type": "model_call"},
        )

    def _count(self, name: str) -> int:
        return sum(1 for c in self.calls if c.get("tool") == name)

    def _extra_call(
        self, name: str, arguments: dict[str, Any], step: int, why: str, expected: Any
    ) -> DivergenceError:
        """A ToolCallCount divergence, showing the nearest recorded call of that tool."""
        pool = [c for c in self.calls if c.get("tool") == name]
        near, diff = nearest(pool, arguments, "arguments")
        return DivergenceError(
            Divergence(
                "ToolCallCount",
                step,
                f"an extra call of {name}: {why}",
                expected=expected,
                actual={"tool": name, "arguments": arguments},
                candidate=candidate_summary(near) if near else None,
                diff=tuple(diff),
            )
        )

    def _out_of_order(
        self, error: DivergenceError, name: str, arguments: dict[str, Any]
    ) -> DivergenceError:
        """Say so when the call is recorded later: the order changed, not the call."""
        later = [
            c
            for c in self.calls[self._cursor :]
            if c.get("tool") == name and same(c.get("arguments"), arguments)
        ]
        if not later:
            return error
        d = error.divergence
        note = f"; {name} with these arguments is recorded later, at seq {later[0]['seq']} "
        note += "(a changed order: lenient mode tolerates it)"
        return DivergenceError(replace(d, message=d.message + note))

    # -- bookkeeping ---------------------------------------------------------------------
    def _next_unused(self, kind: str) -> int | None:
        for index, call in enumerate(self.calls):
            if call["type"] == kind and index not in self._used:
                return index
        return None

    def unused(self) -> list[dict[str, Any]]:
        """Recorded calls the replay never consumed, in recorded order."""
        return [c for i, c in enumerate(self.calls) if i not in self._used]


def _skipped(recorded: dict[str, Any], step: int, instead: str) -> DivergenceError:
    return DivergenceError(
        Divergence(
            "UnusedRecording",
            step,
            f"the recording calls {recorded['tool']} here (seq {recorded['seq']}); {instead}, "
            "so the recorded call would be left unused (a skipped tool call)",
            expected=candidate_summary(recorded),
            actual={"type": "model_call"},
            candidate=candidate_summary(recorded),
        )
    )


def _tool_divergence(
    kind: str, recorded: dict[str, Any] | None, name: str, arguments: dict[str, Any], step: int
) -> DivergenceError:
    if recorded is None:
        message = f"the recording never calls a tool; the agent called {name}"
        return DivergenceError(Divergence(kind, step, message, None, {"tool": name}))
    actual = {"tool": name, "arguments": arguments}
    expected = {"tool": recorded["tool"], "arguments": recorded.get("arguments")}
    diff = field_diff(expected, actual)
    where = f"seq {recorded['seq']}"
    if kind == "ToolName":
        message = f"the agent called {name}; the recording calls {recorded['tool']} ({where})"
    else:
        message = f"{name} called with other arguments than recorded ({where})"
    return DivergenceError(
        Divergence(kind, step, message, expected, actual, candidate_summary(recorded), tuple(diff))
    )


def _raise_extra_model(
    models: list[dict[str, Any]], request: ModelRequest, step: int
) -> ModelAnswer:
    near, diff = nearest(models, request.request, "request")
    raise DivergenceError(
        Divergence(
            "ModelRequest",
            step,
            f"an extra model call: the recording holds {len(models)} and expected.yaml's "
            "continuation has no answer left",
            expected={"model_calls": len(models)},
            actual={"fields": sorted(request.request)},
            candidate=candidate_summary(near) if near else None,
            diff=tuple(diff),
        )
    )


def _cut(event: dict[str, Any]) -> str:
    return ", truncated at capture" if event.get("truncated") else ""
