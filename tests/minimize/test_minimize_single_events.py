"""`corpus minimize` goes down to single events: after the unit pass, each event the agent caused
(a state change, a side effect, a handoff) is tried alone and stays only when the trigger
needs it. Ground truth is the recording script: which events are padding is planted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from corpus_tool.minimize.oracle import Goal, Symptoms
from corpus_tool.minimize.shrink import shrink
from corpus_tool.model.events import SideEffectEvent
from corpus_tool.model.trace import Trace
from tests.conftest import EXAMPLES, Cli
from tests.minimize.padded import FAILING, REFUND_TOOLS, corpus_at
from tests.recording import load_module, record_incident, seqs_of

UI_PADDED = '''\
"""The example refund agent, which updates its UI a dozen times before it asks the model."""
from examples.refund_agent import agent


def run(case_input, rt):
    for n in range(6):
        rt.emit("state_change", key=f"ui.panel{n}", value={"open": n % 2 == 0})
        rt.emit("side_effect", kind="ui_toast", target=f"toast-{n}", data={"shown": n})
    return agent.run(case_input, rt)
'''
EXPECTED = """\
schema_version: 1
id: refund-ui
title: a refund is created in cents (19900), never in the display unit (199)
status: active
tier: fast
owner: payments-team
replay: {mode: strict}
expect:
  tools:
    args: [{tool: create_refund, match: {order_id: O-1004, amount: 19900}}]
"""


def _events(corpus: Path) -> list[dict[str, Any]]:
    doc = yaml.safe_load((corpus / "cases/refund-ui/trace.yaml").read_text(encoding="utf-8"))
    return list(doc["events"])


def test_minimize_strict_removes_a_dozen_padding_events_before_the_first_model_call(
    tmp_path: Path, cli: Cli
) -> None:
    corpus = corpus_at(tmp_path / "corpus", "ui_padded:run")
    (corpus / "ui_padded.py").write_text(UI_PADDED, encoding="utf-8")
    padded = load_module(corpus / "ui_padded.py", "ui_padded_for_recording")
    incident = record_incident(
        padded.run,
        FAILING,
        REFUND_TOOLS,
        tmp_path / "ui.json",
        trace_id="t-ui-1",
        message="Please refund order O-1004.",
    )
    code, _, err = cli("-C", corpus, "add", tmp_path / "ui.json", "--id", "refund-ui")
    assert code == 0, err
    (corpus / "cases/refund-ui/expected.yaml").write_text(EXPECTED, encoding="utf-8")
    padding = {*seqs_of(incident, type="state_change"), *seqs_of(incident, type="side_effect")}
    padding -= set(seqs_of(incident, kind="refund_created"))
    assert len(padding) == 12 and max(padding) < min(seqs_of(incident, type="llm_request"))
    calls = {e["seq"] for e in _events(corpus) if e["type"] in ("model_call", "tool_call")}

    code, out, err = cli("-C", corpus, "minimize", "refund-ui", "--until", "tools.args")
    assert code == 0, err
    assert "(strict replay)" in out
    kept = {e["seq"] for e in _events(corpus)}
    assert padding.isdisjoint(kept)  # every padding event went
    assert kept == calls  # every call stays (strict: each request carries the conversation)

    path = corpus / "cases/refund-ui/trace.yaml"
    first = path.read_bytes()
    code, out, _ = cli("-C", corpus, "minimize", "refund-ui", "--until", "tools.args")
    assert code == 0 and "nothing to remove" in out and "wrote" not in out
    assert path.read_bytes() == first


def test_minimize_keeps_the_single_event_its_trigger_needs() -> None:
    """A trigger that shows only while the recording holds the refund's side effect: that one
    event stays; two UI state changes beside it in its unit, and the calls it does not need,
    go."""
    doc = yaml.safe_load(
        (EXAMPLES / "corpus/cases/refund-success/trace.yaml").read_text(encoding="utf-8")
    )
    for event in doc["events"]:
        event["seq"] *= 10
    doc["terminal"]["seq"] *= 10
    at = next(i for i, e in enumerate(doc["events"]) if e.get("tool") == "create_refund")
    ui = [{"seq": 41 + n, "type": "state_change", "key": f"ui.spinner{n}"} for n in range(2)]
    doc["events"][at + 1 : at + 1] = ui
    trace = Trace.from_doc(doc)

    def oracle(candidate: Trace) -> Symptoms:
        effects = [e for e in candidate.events if isinstance(e, SideEffectEvent)]
        return Symptoms(failed_checks=("tools.args",) if effects else (), terminal="submitted")

    result = shrink(trace, oracle, lambda whole: Goal("check", "tools.args"))
    kept = [e.seq for e in result.trace.events]
    (effect,) = [e.seq for e in trace.events if isinstance(e, SideEffectEvent)]
    assert effect in kept and not {41, 42} & set(kept)
    assert [e.seq for e in trace.events if e.seq in kept] == [30, 40, 50]  # its call, its ask
