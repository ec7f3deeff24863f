"""The worker's replies are untrusted: anything but a well-formed replay is refused, not graded."""

from __future__ import annotations

import os
from typing import Any

import pytest

from corpus_tool.replay.workers import wire
from tests.replay.conftest import ReplayCase


def test_a_replay_survives_the_wire_as_the_engine_made_it(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    for case_id, mode in (("refund-success", "strict"), ("refund-wrong-unit", "strict")):
        run = replay_case(case_id, agent_code.run, mode)
        payload = wire.encode_reply({"kind": "replay", "replay": wire.replay_dict(run)})
        back = wire.replay_from(wire.decode_reply(payload)["replay"])
        assert (back.events, back.terminal, back.unused) == (run.events, run.terminal, run.unused)
        assert back.divergence == run.divergence and back.sequence_diff == run.sequence_diff
        assert back.notes == run.notes
        assert back.cut is None, "where a run stopped is the parent's to work out (cut_short)"


def test_notes_and_a_finished_runs_divergence_survive_the_wire(
    replay_case: ReplayCase, agent_code: Any
) -> None:
    def unsent_temperature(case_input: dict[str, Any], rt: Any) -> Any:
        model = rt.model

        def without(messages: Any, tools: Any = None, **params: Any) -> Any:
            params.pop("temperature", None)
            return model(messages, tools, **params)

        rt.model = without
        return {**agent_code.run(case_input, rt), "status": "needs_human"}

    run = replay_case("refund-success", unsent_temperature)
    assert run.divergence is not None and run.divergence.kind == "TerminalState"
    assert [n.path for n in run.notes] == ["temperature"]
    back = wire.replay_from(wire.decode_reply(wire.encode_reply(
        {"kind": "replay", "replay": wire.replay_dict(run)}))["replay"])  # fmt: skip
    assert back.notes == run.notes
    assert back.divergence == run.divergence and back.divergence.stopped is False


GOOD = {
    "events": [],
    "terminal": {"status": "succeeded", "output": "ok"},
    "divergence": None,
    "unused": [],
    "sequence_diff": [],
}


@pytest.mark.parametrize(
    "change",
    [
        {"terminal": {"status": "passed"}},
        {"terminal": None},
        {"events": "[]"},
        {"events": [1, 2]},
        {"unused": [{"type": "model_call"}]},
        {"sequence_diff": [1]},
        {"divergence": {"kind": "Nothing", "step": 1, "message": "x", "diff": []}},
        {"divergence": {"kind": "ModelRequest", "step": "1", "message": "x", "diff": []}},
        {"divergence": {"kind": "ModelRequest", "step": 1, "message": "x", "diff": []}},
        {
            "divergence": {
                "kind": "ModelRequest",
                "step": 1,
                "message": "x",
                "diff": [],
                "stopped": "yes",
            }
        },
        {"notes": [{"path": "temperature", "carried_by": "nobody", "steps": [1]}]},
        {"notes": [{"path": "temperature", "carried_by": "agent", "steps": ["1"]}]},
        {"notes": "temperature"},
    ],
)
def test_a_malformed_replay_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(wire.WireError):
        wire.replay_from({**GOOD, **change})


@pytest.mark.parametrize(
    "payload", [b"not json", b"[1]", b'{"kind": "passed"}', b"[" * 100_000 + b"]" * 100_000]
)
def test_a_reply_that_is_not_the_protocol_is_refused(payload: bytes) -> None:
    with pytest.raises(wire.WireError):
        wire.decode_reply(payload)


def test_a_frame_claiming_too_many_bytes_is_refused_before_reading() -> None:
    read, write = os.pipe()
    try:
        os.write(write, wire.HEADER.pack(wire.MAX_REPLY_BYTES + 1))
        with pytest.raises(wire.WireError, match="the limit is"):
            wire.read_frame(read)
    finally:
        os.close(read)
        os.close(write)
