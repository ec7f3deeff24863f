"""The example refund agent's incident, padded with two turns that have nothing to do with its
failure: the case the minimize tests shrink. The script is the ground truth of which turn is
padding and which the failure needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool import ModelResponse, ToolCall
from tests.conftest import Cli
from tests.recording import record_incident

PADDING = [
    ModelResponse(None, (ToolCall("p1", "check_refund", {"refund_id": "R0100"}),)),
    ModelResponse(None, (ToolCall("p2", "get_order", {"order_id": "O-0999"}),)),
]
FAILING = [
    ModelResponse(None, (ToolCall("c1", "get_order", {"order_id": "O-1004"}),)),
    # the incident: the model refunds the display price (199) instead of cents (19900)
    ModelResponse(None, (ToolCall("c2", "create_refund", {"order_id": "O-1004", "amount": 199}),)),
    ModelResponse("Your refund R904 of 1.99 CNY has been submitted."),
]


def _order(order_id: str) -> dict[str, Any]:
    return {"order_id": order_id, "status": "delivered", "amount_cents": 19900, "currency": "CNY"}


REFUND_TOOLS = {
    "check_refund": lambda a: {"refund_id": a["refund_id"], "state": "settled"},
    "get_order": lambda a: _order(a["order_id"]),
    "create_refund": lambda a: {"refund_id": "R904", "state": "pending"},
}
REVIEWED = """\
schema_version: 1
id: refund-padded
title: a refund is created in cents (19900), never in the display unit (199)
status: active
tier: fast
owner: payments-team
replay: {mode: lenient}
trigger: {terminal_status: submitted, note: the model refunded 1.99 CNY}
expect:
  tools:
    required: [get_order, create_refund]
    args: [{tool: create_refund, match: {order_id: O-1004, amount: 19900}}]
  terminal: {status: submitted}
"""


def corpus_at(root: Path, entrypoint: str) -> Path:
    """An empty corpus at `root` whose agent is `entrypoint`."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "cases").mkdir()
    (root / "waivers").mkdir()
    (root / "corpus.yaml").write_text(
        f"schema_version: 1\nname: t\nagent:\n  entrypoint: {entrypoint}\n", encoding="utf-8"
    )
    return root


def padded_case(tmp_path: Path, cli: Cli) -> tuple[Path, dict[str, Any]]:
    """Case `refund-padded` in a corpus under `tmp_path`, with a reviewed expected.yaml; the
    incident it came from (the recorder's native document)."""
    from examples.refund_agent import agent

    incident = record_incident(
        agent.run,
        [*PADDING, *FAILING],
        REFUND_TOOLS,
        tmp_path / "padded.json",
        trace_id="t-padded-1",
        message="Please refund order O-1004.",
    )
    corpus = corpus_at(tmp_path / "corpus", "examples.refund_agent.agent:run")
    code, _, err = cli("-C", corpus, "add", tmp_path / "padded.json", "--id", "refund-padded")
    assert code == 0, err
    (corpus / "cases/refund-padded/expected.yaml").write_text(REVIEWED, encoding="utf-8")
    return corpus, incident
