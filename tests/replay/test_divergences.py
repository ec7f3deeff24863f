"""Each edit of the example agent makes strict replay fail with the divergence it deserves."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from corpus_tool import ToolCall
from tests.replay import variants
from tests.replay.conftest import ReplayCase

ACTIVE = ["refund-success", "check-refund-timeout-retry", "create-refund-lost-retry"]


@pytest.mark.parametrize("case_id", [*ACTIVE, "inventory-zero-stock"])
def test_replay_example_agent_matches_its_recordings(
    case_id: str, agent_code: Any, replay_case: ReplayCase
) -> None:
    run = replay_case(case_id, agent_code.run)
    assert run.divergence is None, run.divergence
    assert run.unused == ()
    assert run.sequence_diff == (), "a passing replay carries no diff"


def test_replay_changed_tool_argument_is_tool_arguments(
    agent_code: Any, replay_case: ReplayCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    from examples.refund_agent.tools import refund

    original = refund.prepared

    def in_units(call: ToolCall) -> dict[str, Any]:
        args = original(call)
        if call.name == "create_refund":
            args["amount"] = args["amount"] // 100
        return args

    monkeypatch.setattr(refund, "prepared", in_units)
    run = replay_case("refund-success", agent_code.run)
    assert run.divergence is not None
    assert run.divergence.kind == "ToolArguments"
    assert run.divergence.step == 4, "get_order, model, create_refund: the 4th call"
    assert run.divergence.candidate == {
        "seq": 4,
        "type": "tool_call",
        "tool": "create_refund",
        "arguments": {"order_id": "O-1001", "amount": 19900, "idempotency_key": "rf-O-1001-1"},
    }
    assert [(d.path, d.expected, d.actual) for d in run.divergence.diff] == [
        ("$.arguments.amount", 19900, 199)
    ]


def test_replay_repeat_of_an_answered_call_is_tool_call_count(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    run = replay_case("inventory-zero-stock", variants.inventory_extra_read)
    assert run.divergence is not None
    assert run.divergence.kind == "ToolCallCount"
    assert run.divergence.message.startswith(
        "a second call of search_inventory (a repeat of seq 2, same arguments); "
        "the recording has one; the recording calls notify_operator at this step (seq 4)"
    )
    stopped = run.events[-1]
    assert (stopped.type, stopped.extra) == ("tool_call", {"diverged": "ToolCallCount"})
    assert '+tool_call search_inventory("sku": "A100") -> not answered' in run.sequence_diff


def test_replay_other_tool_than_recorded_is_tool_name(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    def orders_instead(case_input: dict[str, Any], rt: Any) -> Any:
        desk = variants._desk()
        desk.ask(case_input, rt, "inventory-v2")
        rt.tool("place_order", {"sku": "A100", "quantity": 10})
        return {"status": "succeeded", "output": None}

    run = replay_case("inventory-zero-stock", orders_instead)
    assert run.divergence is not None
    assert run.divergence.kind == "ToolName"
    assert "the agent called place_order; the recording calls notify_operator" in (
        run.divergence.message
    )


def test_replay_extra_call_past_the_recording_is_tool_call_count(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    def one_more(case_input: dict[str, Any], rt: Any) -> Any:
        result = agent_code.run(case_input, rt)
        rt.tool("check_refund", {"refund_id": "R900"})
        return result

    run = replay_case("refund-success", one_more)
    assert run.divergence is not None
    assert run.divergence.kind == "ToolCallCount"
    assert run.divergence.message == (
        "an extra call of check_refund: the recording never calls it; the recording has no "
        "calls left and expected.yaml has no stub for check_refund"
    )


def test_replay_skipped_tool_call_is_unused_recording(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    run = replay_case("inventory-zero-stock", variants.inventory_no_notify)
    assert run.divergence is not None
    assert run.divergence.kind == "UnusedRecording"
    assert "seq 4 notify_operator" in run.divergence.message
    assert [c.seq for c in run.unused] == [4]
    assert "-tool_call notify_operator(" in "\n".join(run.sequence_diff)


def test_replay_call_skipped_mid_run_is_unused_recording(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    from examples.refund_agent import prompts
    from examples.refund_agent.tools.refund import MODEL, SPECS

    def no_lookup(case_input: dict[str, Any], rt: Any) -> Any:
        messages = [
            {"role": "system", "content": prompts.load("refund-v13")},
            {"role": "user", "content": case_input["user_message"]},
        ]
        rt.model(messages, tools=SPECS, model=MODEL, temperature=0.0)  # as recorded
        rt.model([*messages, {"role": "user", "content": "refund it without looking"}])
        return {"status": "submitted", "output": None}

    run = replay_case("refund-success", no_lookup)
    assert run.divergence is not None
    assert run.divergence.kind == "UnusedRecording"
    assert run.divergence.step == 2
    assert "the recording calls get_order here (seq 2)" in run.divergence.message


def test_replay_other_terminal_status_is_terminal_state(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    run = replay_case("inventory-zero-stock", variants.inventory_escalates)
    assert run.divergence is not None
    assert run.divergence.kind == "TerminalState"
    assert run.divergence.expected == "succeeded"
    assert run.divergence.actual == "needs_human"
    assert list(run.sequence_diff[-2:]) == ["-end succeeded", "+end needs_human"]


def test_replay_other_output_on_the_same_path_is_semantic_output(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    def terse(case_input: dict[str, Any], rt: Any) -> Any:
        return {**agent_code.run(case_input, rt), "output": "done"}

    run = replay_case("refund-success", terse)
    assert run.divergence is not None
    assert run.divergence.kind == "SemanticOutput"
    assert run.divergence.actual == "done"


def test_replay_lenient_mode_tolerates_reordered_reads(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    strict = replay_case("inventory-zero-stock", variants.inventory_reads_reversed)
    assert strict.divergence is not None and strict.divergence.kind == "ToolName"
    assert "recorded later, at seq 3 (a changed order" in strict.divergence.message
    lenient = replay_case("inventory-zero-stock", variants.inventory_reads_reversed, "lenient")
    assert lenient.divergence is None
    assert lenient.terminal.status == "succeeded"
    assert lenient.unused == ()


def test_replay_prompt_change_is_model_request_with_field_diff(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    run = replay_case("refund-wrong-unit", agent_code.run)
    assert run.divergence is not None
    assert run.divergence.kind == "ModelRequest"
    assert run.divergence.step == 1
    (diff,) = run.divergence.diff
    assert diff.path == "$.request.messages[0].content"
    assert diff.actual.endswith("amounts are in cents.")


def test_replay_lost_result_is_tool_result(replay_case: ReplayCase, agent_code: Any) -> None:
    run = replay_case("cancel-refund-span-lost", agent_code.run)
    assert run.divergence is not None
    assert run.divergence.kind == "ToolResult"
    assert "truncated at capture" in run.divergence.message


def test_replay_recorded_tool_error_is_raised_as_tool_error(replay_case: ReplayCase) -> None:
    from corpus_tool import ToolError

    seen: list[tuple[str, str]] = []

    def agent(case_input: dict[str, Any], rt: Any) -> Any:
        reply = rt.model([{"role": "user", "content": "x"}])
        try:
            rt.tool(reply.tool_calls[0].name, reply.tool_calls[0].arguments)
        except ToolError as err:
            seen.append((err.type, err.message))
        return {"status": "failed", "output": None}

    replay_case("check-refund-timeout-retry", agent, "lenient")
    assert seen == [("TimeoutError", "payments gateway did not answer in 5s")]


def test_replay_swallowed_divergence_still_fails(replay_case: ReplayCase) -> None:
    def stubborn(case_input: dict[str, Any], rt: Any) -> Any:
        with contextlib.suppress(BaseException):  # the point: even this cannot hide it
            rt.tool("delete_everything", {})
        return {"status": "succeeded", "output": "fine"}

    run = replay_case("refund-success", stubborn)
    assert run.divergence is not None
    assert run.divergence.kind == "ToolCallCount"


@pytest.mark.parametrize("mode", ["strict", "lenient"])
def test_replay_stub_answers_a_call_whose_result_was_lost(
    replay_case: ReplayCase, agent_code: Any, mode: str
) -> None:
    run = replay_case(
        "cancel-refund-span-lost",
        agent_code.run,
        mode,
        stubs={"cancel_refund": {"result": {"refund_id": "R905", "state": "cancelled"}}},
        continuation=[{"content": "Refund R905 is cancelled."}],
    )
    assert run.divergence is None
    assert run.terminal.to_doc() == {"status": "succeeded", "output": "Refund R905 is cancelled."}
    assert [(e.extra or {}).get("origin") for e in run.events] == [
        None,
        "stub",
        "continuation",
    ]


def test_replay_stubs_and_continuation_answer_past_the_recording(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    def fixed(case_input: dict[str, Any], rt: Any) -> Any:
        result = agent_code.run(case_input, rt)
        rt.tool("notify_operator", {"sku": "A100", "reason": "restocked"})
        reply = rt.model([{"role": "user", "content": "summarise"}])
        return {**result, "output": reply.content}

    run = replay_case(
        "inventory-zero-stock",
        fixed,
        stubs={"notify_operator": {"result": {"ok": True, "ticket": "OPS-18"}}},
        continuation=[{"content": "Restock requested."}],
    )
    assert run.divergence is None
    assert run.terminal.to_doc() == {"status": "succeeded", "output": "Restock requested."}
    origins = [(e.extra or {}).get("origin") for e in run.events[-2:]]
    assert origins == ["stub", "continuation"]


def test_replay_clock_is_frozen_and_random_seeded_without_touching_globals(
    replay_case: ReplayCase,
) -> None:
    import random

    seen: list[Any] = []

    def agent(case_input: dict[str, Any], rt: Any) -> Any:
        seen.append((rt.now().isoformat(), rt.random.random()))
        return {"status": "succeeded", "output": None}

    state = random.getstate()
    replay_case("refund-success", agent, "lenient")
    replay_case("refund-success", agent, "lenient")
    assert random.getstate() == state, "the process's random is untouched"
    assert seen[0] == seen[1]
    assert seen[0][0] == "2025-06-01T18:00:00+08:00", "recorded start, in the recorded zone"
    assert seen[0][1] == random.Random(42).random(), "seeded from the recording"


def test_replay_bad_return_value_is_a_contract_error(replay_case: ReplayCase) -> None:
    from corpus_tool.replay.engine import AgentContractError

    with pytest.raises(AgentContractError, match="return \\{'status'"):
        replay_case("refund-success", lambda case_input, rt: "done", "lenient")


def test_replay_agent_crash_is_an_error_event_and_failed_status(replay_case: ReplayCase) -> None:
    def crashes(case_input: dict[str, Any], rt: Any) -> Any:
        return {"status": "succeeded", "output": str(1 / 0)}

    run = replay_case("inventory-zero-stock", crashes, "lenient")
    assert run.terminal.to_doc() == {"status": "failed", "output": None}
    error = run.events[-1].to_doc()
    assert error["type"] == "error"
    assert error["error"] == {"type": "ZeroDivisionError", "message": "division by zero"}
    assert error["stack"].startswith("test_divergences.py:")
