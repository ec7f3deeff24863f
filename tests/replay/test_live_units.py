"""Live replay's parts in-process: tool matching by name and arguments, provider retries."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from corpus_tool import ModelResponse, ProviderError, Runtime, ToolCall, ToolError
from corpus_tool.model.events import ModelRequest, ToolCallEvent
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace
from corpus_tool.replay.engine import CaseSpec, replay
from corpus_tool.replay.live import LiveSpec
from corpus_tool.replay.provider import RetryPolicy, call_live
from corpus_tool.replay.runtime import ModelAnswer
from tests.replay.conftest import CORPUS


def _spec(case: str, live: LiveSpec) -> CaseSpec:
    folder = CORPUS / "cases" / case
    trace = yaml.safe_load((folder / "trace.yaml").read_text(encoding="utf-8"))
    expected = yaml.safe_load((folder / "expected.yaml").read_text(encoding="utf-8"))
    return CaseSpec(Trace.from_doc(trace), Expected.from_doc(expected), "live", (), live=live)


def _link(*answers: ModelResponse) -> Any:
    left = list(answers)

    def link(request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        return ModelAnswer(left.pop(0), model, 1.0, "live")

    return link


def _calls(agent_calls: list[tuple[str, dict[str, Any]]]) -> Any:
    def agent(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
        rt.model([{"role": "user", "content": "go"}], model="m")
        got = []
        for name, args in agent_calls:
            try:
                got.append(rt.tool(name, args))
            except ToolError as err:
                got.append(f"ToolError {err.type}")
        return {"status": "succeeded", "output": got}

    return agent


def test_nth_identical_call_gets_the_nth_recorded_answer() -> None:
    """check_refund R901 is recorded twice: a timeout, then the answer; a third identical call
    gets the last answer again (a repeated read)."""
    args = {"refund_id": "R901"}
    run = replay(
        _calls([("check_refund", args)] * 3),
        _spec("check-refund-timeout-retry", LiveSpec()),
        _link(ModelResponse("ok")),
    )
    first, second, third = run.terminal.output
    assert first == "ToolError TimeoutError"
    assert second["state"] == third["state"] == "settled"
    assert run.divergence is None


def test_ignored_arguments_match_a_call_whose_key_differs_run_to_run() -> None:
    """create_refund with another idempotency key: unmatched, unless ignore_arguments names it."""
    args = {"order_id": "O-1001", "amount": 19900, "idempotency_key": "fresh-123"}
    agent = _calls([("get_order", {"order_id": "O-1001"}), ("create_refund", args)])
    plain = replay(agent, _spec("refund-success", LiveSpec()), _link(ModelResponse("ok")))
    assert plain.terminal.output[1] == {"status": "unknown", "replay_unmatched": True}
    ignoring = LiveSpec(ignore_arguments={"create_refund": ("idempotency_key",)})
    matched = replay(agent, _spec("refund-success", ignoring), _link(ModelResponse("ok")))
    assert matched.terminal.output[1]["refund_id"] == "R900"


def test_recorded_calls_the_live_run_never_made_are_unused_notes_not_divergences() -> None:
    run = replay(_calls([]), _spec("refund-success", LiveSpec()), _link(ModelResponse("done")))
    assert run.divergence is None
    assert [c.seq for c in run.unused if isinstance(c, ToolCallEvent)] == [2, 4]


def test_live_from_answers_the_earlier_model_calls_from_the_recording() -> None:
    """--live-from 3: seq 1's recorded answer (ask get_order), then the live model."""
    asked: list[int] = []

    def link(request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        asked.append(len(request.messages))
        return ModelAnswer(ModelResponse("live answer"), model, 1.0, "live")

    def agent(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
        first = rt.model([{"role": "user", "content": "changed prompt"}], model="m")
        second = rt.model([{"role": "user", "content": "x"}, {"role": "user", "content": "y"}])
        return {"status": "succeeded", "output": [first.tool_calls[0].name, second.content]}

    run = replay(agent, _spec("refund-success", LiveSpec(live_from=3)), link)
    assert run.terminal.output == ["get_order", "live answer"]
    assert asked == [2]


class Flaky:
    """A model that fails with the given errors, then answers."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self, messages: list[Any], **kwargs: Any) -> ModelResponse:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return ModelResponse("hi", (ToolCall("1", "t", {}),), model="m-2025")


class StatusError(Exception):
    def __init__(self, status_code: int) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


BODY = {"messages": [{"role": "user", "content": "hi"}], "model": "m"}


def test_429_then_200_is_retried_and_every_attempt_kept() -> None:
    slept: list[float] = []
    model = Flaky(ProviderError(429, "slow down"))
    called = call_live(model, BODY, RetryPolicy(2, 0.5, slept.append))
    assert called.response is not None and called.failed is None
    assert [(e.status, e.message) for e in called.errors] == [(429, "slow down")]
    assert slept == [0.5]


@pytest.mark.parametrize(
    ("error", "status"),
    [(StatusError(503), 503), (TimeoutError("read timed out"), "timeout")],
)
def test_a_provider_that_keeps_failing_fails_after_the_retries(
    error: Exception, status: object
) -> None:
    slept: list[float] = []
    model = Flaky(error, error, error, error)
    called = call_live(model, BODY, RetryPolicy(2, 0.5, slept.append))
    assert called.response is None and called.failed is not None
    assert called.failed.status == status and model.calls == 3
    assert slept == [0.5, 1.0]


def test_a_client_error_is_not_retried() -> None:
    model = Flaky(StatusError(400))
    called = call_live(model, BODY, RetryPolicy(2, 0.5, lambda s: None))
    assert model.calls == 1 and called.failed is not None and called.failed.status == 400


def test_the_live_model_gets_the_arguments_the_agent_passed() -> None:
    seen: dict[str, Any] = {}

    def model(messages: list[Any], **kwargs: Any) -> ModelResponse:
        seen.update(kwargs, messages=messages)
        return ModelResponse("x")

    body = {**BODY, "tools": [{"type": "function"}], "temperature": 0.0, "params": {"seed": 1}}
    call_live(model, body, RetryPolicy())
    assert seen == {
        "messages": BODY["messages"],
        "tools": [{"type": "function"}],
        "temperature": 0.0,
        "model": "m",
        "seed": 1,
    }
