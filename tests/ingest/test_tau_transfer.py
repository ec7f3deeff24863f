"""tau-bench and tau2-bench: a run the agent handed to a human (`transfer_to_human_agents`
answered "Transfer successful") ends `needs_human` in both, by one rule (docs/formats.md).

Whether a run transferred is read from the results file here, not through the importer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ingest.conftest import load

TRANSFER = "transfer_to_human_agents"


def _transferred(messages: list[dict[str, Any]]) -> bool:
    """A transfer call the tool message of its id answered with success."""
    asked = {
        c["id"]
        for m in messages
        if m.get("role") == "assistant" and m.get("requestor", "assistant") == "assistant"
        for c in m.get("tool_calls") or []
        if (c.get("function") or c).get("name") == TRANSFER
    }
    return any(
        m.get("role") == "tool"
        and (m.get("tool_call_id") or m.get("id")) in asked
        and m.get("content") == "Transfer successful"
        for m in messages
    )


@pytest.mark.parametrize(
    "name",
    [
        "tau_bench_transfer/avaljotsingh_retail_task_27.json",
        "tau_bench_transfer/tool-calling-none-0.1_range_0-100_user-none-llm_06232025.subset2.json",
        "tau_bench/gpt-4o-airline.subset2.json",
    ],
)
def test_tau_bench_transfer_to_a_human_is_needs_human(samples: Path, name: str) -> None:
    source = json.loads((samples / name).read_text(encoding="utf-8"))
    runs = {r.task_id: r for r in load(samples / name)}
    for raw in source:
        terminal = runs[str(raw["task_id"])].body["terminal"]
        if _transferred(raw["traj"]):
            assert terminal["status"] == "needs_human", raw["task_id"]
        else:
            assert terminal["status"] != "needs_human", raw["task_id"]
    assert any(_transferred(r["traj"]) for r in source) or "gpt-4o" in name


def test_tau2_transfer_to_a_human_is_needs_human(samples: Path) -> None:
    name = samples / "tau2_bench/whissle_airline_run1.subset3.json"
    source = json.loads(name.read_text(encoding="utf-8"))
    runs = {r.task_id: r for r in load(name)}
    transferred = [s for s in source["simulations"] if _transferred(s["messages"])]
    assert transferred, "the sample holds transfers ended by the user simulator (user_stop)"
    for sim in transferred:
        assert runs[str(sim["task_id"])].body["terminal"]["status"] == "needs_human"
