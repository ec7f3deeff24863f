"""Fault variants replayed: the example agent against `corpus vary`'s variants of refund-success,
and a mutated agent that retries with a fresh idempotency key (it charges twice)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from corpus_tool.testing.scripted_model import ModelScript
from tests.conftest import Cli
from tests.replay.conftest import copy_corpus
from tests.replay.live_corpus import live_corpus, provider

__all__ = ["provider"]  # the fixture, used by name

SOURCE = "refund-success"
TIMEOUT = "refund-success~timeout-create_refund"
DUPLICATE = "refund-success~duplicate-create_refund"
HTTP = "refund-success~http503-create_refund"

FRESH_KEY = textwrap.dedent(
    """
    # The example agent, but each attempt of create_refund carries a new idempotency key.
    from examples.refund_agent import agent
    from examples.refund_agent.tools import refund

    def call_tool(rt, call):
        args = refund.prepared(call)
        for attempt in (1, 2):
            if call.name == "create_refund":
                args = {**args, "idempotency_key": f"rf-{args['order_id']}-{attempt}"}
            try:
                result = rt.tool(call.name, args)
            except refund.ToolError as err:
                if attempt == 1 and err.type in refund.RETRYABLE:
                    rt.emit("retry", of=err.seq, attempt=2)
                    continue
                return {"error": f"{err.type}: {err.message}"}
            if call.name == "create_refund":
                data = {"refund_id": result.get("refund_id"), "amount": args.get("amount")}
                rt.emit("side_effect", kind="refund_created", target=args["order_id"], data=data)
            return result

    def run(case_input, rt):
        agent.call_tool = call_tool
        return agent.run(case_input, rt)
    """
)


def _varied(root: Path, cli: Cli, *faults: str) -> None:
    args = [a for f in faults for a in ("--fault", f)]
    done = cli("-C", root, "vary", SOURCE, *args, "--write")
    assert done.code == 0, done.err


def _fresh_key_corpus(tmp_path: Path) -> Path:
    root = copy_corpus(tmp_path, "fresh_key_agent:run")
    (root / "fresh_key_agent.py").write_text(FRESH_KEY, encoding="utf-8")
    return root


def _cases(path: Path) -> dict[str, dict[str, Any]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {c["case"]: c for c in doc["cases"]}


def _events(case: dict[str, Any]) -> list[dict[str, Any]]:
    return list(case["trajectory"]["events"])


def test_the_example_agent_passes_timeout_and_duplicate_variants(cli: Cli, tmp_path: Path) -> None:
    """It retries create_refund once with the same key: the retry gets the recorded refund."""
    root = copy_corpus(tmp_path)
    _varied(root, cli, "timeout:create_refund", "duplicate:create_refund")
    results = tmp_path / "results.json"
    done = cli("-C", root, "replay", TIMEOUT, DUPLICATE, "--results", results)
    assert done.code == 0, done.out + done.err
    for case in _cases(results).values():
        assert case["verdict"] == "passed" and case["divergence"] is None
        calls = [e for e in _events(case) if e.get("tool") == "create_refund"]
        assert len(calls) == 2  # the faulted attempt and its retry
        assert calls[0]["error"]["type"] == "TimeoutError" and "result" not in calls[0]
        assert calls[1]["result"]["refund_id"] == "R900"
        assert calls[0]["idempotency_key"] == calls[1]["idempotency_key"]
        effects = [e for e in _events(case) if e["type"] == "side_effect"]
        assert len(effects) == 1


def test_an_agent_retrying_with_a_fresh_key_fails_the_timeout_variant_on_idempotency(
    cli: Cli, tmp_path: Path
) -> None:
    root = _fresh_key_corpus(tmp_path)
    _varied(root, cli, "timeout:create_refund")
    results = tmp_path / "results.json"
    done = cli("-C", root, "replay", SOURCE, TIMEOUT, "--results", results)
    assert done.code == 1, done.out + done.err
    cases = _cases(results)
    assert cases[SOURCE]["verdict"] == "passed"  # the happy path cannot tell
    variant = cases[TIMEOUT]
    assert variant["verdict"] == "failed"
    assert variant["failed_checks"] == ["idempotency.reuse_key"]
    keys = [e["idempotency_key"] for e in _events(variant) if e.get("tool") == "create_refund"]
    assert keys == ["rf-O-1001-1", "rf-O-1001-2"]


def test_the_duplicate_variant_catches_an_agent_that_charges_twice(
    cli: Cli, tmp_path: Path
) -> None:
    """The first attempt executed before it timed out; a retry under a new key executes again:
    two refunds, one too many."""
    root = _fresh_key_corpus(tmp_path)
    _varied(root, cli, "duplicate:create_refund")
    results = tmp_path / "results.json"
    done = cli("-C", root, "replay", DUPLICATE, "--results", results)
    assert done.code == 1
    variant = _cases(results)[DUPLICATE]
    assert "side_effects.count" in variant["failed_checks"], variant["failed_checks"]
    effects = [e for e in _events(variant) if e["type"] == "side_effect"]
    assert [e["kind"] for e in effects] == ["refund_created", "refund_created"]
    assert sum((e.get("extra") or {}).get("origin") == "fault" for e in effects) == 1
    assert "refund_created: 2 effects" in done.out


def test_recorded_mode_ends_a_variant_where_the_recording_cannot_answer(
    cli: Cli, tmp_path: Path
) -> None:
    """An HTTP 503 result is no error to the example agent: it hands it to the model, whose
    request the recording does not hold. The case ends there, graded so far, not failed."""
    root = copy_corpus(tmp_path)
    _varied(root, cli, "http:503:create_refund")
    results = tmp_path / "results.json"
    done = cli("-C", root, "replay", HTTP, "--results", results)
    assert done.code == 0, done.out + done.err
    case = _cases(results)[HTTP]
    events = _events(case)
    # the step the run ended at: its model and tool calls, the one stopped included
    step = sum(e["type"] in ("model_call", "tool_call") for e in events)
    assert events[-1]["type"] == "model_call" and events[-1]["extra"]["diverged"]
    assert case["verdict"] == "passed" and case["failed_checks"] == []
    assert case["ended_at"] == step == case["divergence"]["step"]
    assert case["not_reached"]  # what the rest of the run decides is left open
    (line,) = [ln for ln in done.out.splitlines() if ln.startswith("PASS")]
    assert f"ended at step {step}" in line and "--model live" in line


def test_a_divergence_before_the_fault_hits_still_fails_a_variant(cli: Cli, tmp_path: Path) -> None:
    """The variant's fault never reached: the agent changed before it; that is a divergence."""
    root = copy_corpus(tmp_path)
    _varied(root, cli, "timeout:create_refund")
    path = root / "cases" / TIMEOUT / "trace.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("order_id: O-1001\n  result:", "order_id: O-1002\n  result:", 1))
    done = cli("-C", root, "replay", TIMEOUT)
    assert done.code == 1 and "ToolArguments at step 2" in done.out, done.out


def test_live_mode_runs_the_whole_reaction_to_the_fault(
    cli: Cli, tmp_path: Path, provider: ModelScript
) -> None:
    root = live_corpus(tmp_path)
    _varied(root, cli, "http:503:create_refund")
    results = tmp_path / "results.json"
    done = cli("-C", root, "replay", HTTP, "--model", "live", "--results", results)
    case = _cases(results)[HTTP]
    assert case["divergence"] is None and "ended_at" not in case, done.out
    assert case["not_reached"] == []
    events = _events(case)
    assert events[-1]["type"] == "model_call"  # the model answered the 503 itself
    assert case["trajectory"]["terminal"]["status"] != "unknown"
    # the ending recorded mode left open is decided: the example agent calls an unconfirmed
    # refund `succeeded` (the defect the variant exists to show)
    assert case["trajectory"]["terminal"]["status"] == "succeeded"
    assert "terminal.status" in case["failed_checks"]
    asked = json.dumps(provider.requests[-1]["messages"])
    assert "Service Unavailable" in asked  # the provider saw what the fault returned
