"""`corpus diff` on writes, retries and one-sided request fields, as a user runs it on a recorded
trace and an edited copy of it.

A write is what the world sees: a changed argument of a tool call followed by a side effect,
a side effect gone, or side-effect data changed is a regression; the same change on a call no
side effect follows stays `changed`. Seq numbers (a retry's `of` among them) are never
compared, and a request field only one side carries is a note, as in strict replay.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import EXAMPLES, Cli

REFUND = EXAMPLES / "corpus/cases/refund-success/trace.yaml"
RETRY = EXAMPLES / "corpus/cases/check-refund-timeout-retry/trace.yaml"
Edit = Callable[[dict[str, Any]], None]


def _copy(source: Path, to: Path, edit: Edit) -> Path:
    doc = yaml.safe_load(source.read_text(encoding="utf-8"))
    edit(doc)
    to.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return to


def _event(doc: dict[str, Any], **match: Any) -> dict[str, Any]:
    return next(e for e in doc["events"] if all(e.get(k) == v for k, v in match.items()))


def _charge(amount: int) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        _event(doc, tool="create_refund")["arguments"]["amount"] = amount

    return edit


def _no_side_effects(doc: dict[str, Any]) -> None:
    doc["events"] = [e for e in doc["events"] if e["type"] != "side_effect"]


def _diff(cli: Cli, a: Path, b: Path, *more: str) -> tuple[int, dict[str, Any]]:
    code, out, err = cli("diff", a, b, "--format", "json", *more)
    assert code in (0, 1), err
    return code, json.loads(out)


def test_diff_a_changed_charge_amount_is_a_regression_naming_amount_at_its_step(
    cli: Cli, tmp_path: Path
) -> None:
    charged = _copy(REFUND, tmp_path / "charged.yaml", _charge(199))
    code, report = _diff(cli, REFUND, charged)
    assert code == 1 and report["verdict"] == "regression"
    (write,) = report["writes"]
    assert write["change"] == "arguments" and write["name"] == "create_refund"
    assert write["diff"] == [{"path": "$.arguments.amount", "a": 19900, "b": 199}]
    step = write["step"]
    assert [s["step"] for s in report["steps"]] == [step]  # the call's own step
    assert report["reasons"] == [
        f"a write changed at step {step}: create_refund arguments.amount 19900 -> 199"
    ]
    code, out, _ = cli("diff", REFUND, charged)
    assert code == 1 and f"regression: a write changed at step {step}: create_refund" in out


def test_diff_the_same_change_on_a_read_only_call_stays_changed(cli: Cli, tmp_path: Path) -> None:
    read_only = _copy(REFUND, tmp_path / "a.yaml", _no_side_effects)
    charged = _copy(read_only, tmp_path / "b.yaml", _charge(199))
    code, report = _diff(cli, read_only, charged)
    assert code == 0 and report["verdict"] == "changed", report["reasons"]
    assert report["writes"] == []
    assert report["arguments"][0]["diff"] == [{"path": "$.arguments.amount", "a": 19900, "b": 199}]


def test_diff_side_effect_data_changed_or_gone_is_a_regression(cli: Cli, tmp_path: Path) -> None:
    def other_data(doc: dict[str, Any]) -> None:
        _event(doc, type="side_effect")["data"]["amount"] = 199

    changed = _copy(REFUND, tmp_path / "data.yaml", other_data)
    code, report = _diff(cli, REFUND, changed)
    assert code == 1 and report["verdict"] == "regression"
    (write,) = report["writes"]
    assert write["change"] == "side_effect" and write["name"] == "refund_created"
    assert write["diff"] == [{"path": "$.data.amount", "a": 19900, "b": 199}]

    gone = _copy(REFUND, tmp_path / "gone.yaml", _no_side_effects)
    code, report = _diff(cli, REFUND, gone)
    assert code == 1 and report["verdict"] == "regression"
    assert [(w["change"], w["name"]) for w in report["writes"]] == [("gone", "refund_created")]
    assert "side effect refund_created no longer happens" in report["reasons"][0]


def test_diff_ignore_still_drops_a_field_of_a_write(cli: Cli, tmp_path: Path) -> None:
    charged = _copy(REFUND, tmp_path / "charged.yaml", _charge(199))
    code, report = _diff(cli, REFUND, charged, "--ignore", "arguments.amount")
    assert code == 0 and report["verdict"] == "identical"


def test_diff_does_not_compare_a_retrys_seq_of(cli: Cli, tmp_path: Path) -> None:
    """A recorder whose seq numbers are not 1..n: the same run, numbered from 49006."""

    def renumbered(doc: dict[str, Any]) -> None:
        for event in doc["events"]:
            event["seq"] += 49005
            if event["type"] == "retry":
                event["of"] += 49005
        doc["terminal"]["seq"] += 49005

    other = _copy(RETRY, tmp_path / "renumbered.yaml", renumbered)
    assert _event(yaml.safe_load(other.read_text("utf-8")), type="retry")["of"] == 49007
    code, report = _diff(cli, RETRY, other)
    assert code == 0 and report["verdict"] == "identical", report["steps"]


def test_diff_a_request_field_only_the_recording_holds_is_a_note(cli: Cli, tmp_path: Path) -> None:
    def top_p(doc: dict[str, Any]) -> None:
        _event(doc, type="model_call")["request"]["params"] = {"top_p": 0.9}

    recording = _copy(REFUND, tmp_path / "recording.yaml", top_p)
    code, report = _diff(cli, recording, REFUND)
    assert code == 0 and report["verdict"] == "identical", report["steps"]
    (note,) = report["notes"]
    assert (note["step"], note["path"], note["only_in"], note["value"]) == (
        1,
        "params.top_p",
        "a",
        0.9,
    )
    assert "request field params.top_p only in A (0.9): not compared" in note["message"]
    code, out, _ = cli("diff", recording, REFUND)
    assert code == 0 and "note: step 1: request field params.top_p only in A" in out
    # a field both sides carry is compared as before
    code, report = _diff(cli, recording, _copy(recording, tmp_path / "b.yaml", _top_p(0.5)))
    assert report["verdict"] == "changed"
    assert report["steps"][0]["diff"] == [{"path": "$.request.params.top_p", "a": 0.9, "b": 0.5}]


def _top_p(value: float) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        _event(doc, type="model_call")["request"]["params"]["top_p"] = value

    return edit
