"""`corpus add` of native incidents: the case files, determinism, and every refusal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.io import schema
from tests.conftest import EXAMPLES, Cli

INCIDENTS = sorted((EXAMPLES / "incidents").glob("*.json"))
COMPLETE = [p for p in INCIDENTS if "span-lost" not in p.name]


def _incident(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def _minimal(**changes: Any) -> dict[str, Any]:
    incident: dict[str, Any] = {
        "schemaVersion": "1.0",
        "traceId": "T-Minimal/0001",
        "startedAt": "2025-06-01T10:00:00Z",
        "agent": {"name": "a", "configHash": "h1"},
        "input": {"userMessage": "hi"},
        "events": [
            {
                "seq": 1,
                "type": "llm_request",
                "model": "m1",
                "messages": [],
                "response": {
                    "content": None,
                    "toolCalls": [{"id": "c1", "name": "t", "arguments": '{"x": 1}'}],
                },
            },
            {
                "seq": 2,
                "type": "tool_call",
                "tool": "t",
                "callId": "c1",
                "input": {"x": 1},
                "result": 5,
            },
            {"seq": 3, "type": "final", "status": "succeeded", "output": "5"},
        ],
    }
    incident.update(changes)
    return incident


def _cases(corpus: Path) -> list[str]:
    return sorted(p.name for p in (corpus / "cases").iterdir() if p.is_dir())


@pytest.mark.parametrize("incident", COMPLETE, ids=lambda p: p.stem)
def test_add_example_incident_writes_schema_valid_case(
    corpus_dir: Path, cli: Cli, incident: Path
) -> None:
    result = cli("-C", corpus_dir, "add", incident, "--id", incident.stem)
    assert result.code == 0, result.err
    case = corpus_dir / "cases" / incident.stem
    trace = yaml.safe_load((case / "trace.yaml").read_text(encoding="utf-8"))
    expected = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    assert schema.errors("trace", trace) == []
    assert schema.errors("expected", expected) == []
    raw = json.loads(incident.read_text(encoding="utf-8"))
    assert len(trace["events"]) == sum(1 for e in raw["events"] if e["type"] != "final")
    assert trace["source"]["trace_id"] == raw["traceId"]


def test_add_then_validate_whole_corpus_is_clean(corpus_dir: Path, cli: Cli) -> None:
    for incident in INCIDENTS:
        flags = [] if incident in COMPLETE else ["--allow-incomplete"]
        assert cli("-C", corpus_dir, "add", incident, *flags).code == 0
    result = cli("-C", corpus_dir, "validate")
    assert result.code == 0, result.out
    assert f"{2 * len(INCIDENTS) + 1} files checked, no problems" in result.out


def test_add_normalizes_native_events(corpus_dir: Path, cli: Cli, tmp_path: Path) -> None:
    incident = _incident(tmp_path, "i.json", _minimal(customerTier="gold"))
    assert cli("-C", corpus_dir, "add", incident).code == 0
    trace = yaml.safe_load((corpus_dir / "cases/t-minimal-0001/trace.yaml").read_text())
    model_call, tool_call = trace["events"]
    assert model_call["type"] == "model_call"
    assert model_call["response"]["tool_calls"] == [
        {"id": "c1", "name": "t", "arguments": {"x": 1}}
    ]
    assert tool_call == {
        "seq": 2,
        "type": "tool_call",
        "tool": "t",
        "call_id": "c1",
        "arguments": {"x": 1},
        "result": 5,
    }
    assert trace["terminal"] == {"status": "succeeded", "output": "5", "seq": 3}
    assert trace["extra"] == {"customerTier": "gold"}, "unknown incident keys are kept under extra"
    assert trace["recorded"]["models"] == ["m1"]


def test_add_drafts_expectations_from_the_incident(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    # the example incident is recorded from the fixed agent; the crash of the original
    # incident is put back: the calculator fails after the two reads
    recorded = json.loads((EXAMPLES / "incidents/inventory-zero-stock.json").read_text("utf-8"))
    crash = {"seq": 4, "type": "error", "error": "ZeroDivisionError: division by zero"}
    recorded["events"] = [*recorded["events"][:3], crash, {"seq": 5, "type": "final"}]
    recorded["events"][-1]["status"] = "failed"
    incident = tmp_path / "zero.json"
    incident.write_text(json.dumps(recorded), "utf-8")
    assert cli("-C", corpus_dir, "add", incident, "--id", "zero", "--tier", "full").code == 0
    text = (corpus_dir / "cases/zero/expected.yaml").read_text(encoding="utf-8")
    expected = yaml.safe_load(text)
    assert expected["trigger"] == {"error_type": "ZeroDivisionError", "seq": 4}
    assert expected["expect"]["errors"] == {"forbidden": ["ZeroDivisionError"]}
    # what the incident did, so a missing, a new and an extra call all fail (lenient too)
    assert expected["expect"]["tools"] == {
        "required": ["get_sales", "search_inventory"],
        "allowed": ["get_sales", "search_inventory"],
        "max_calls": {"get_sales": 1, "search_inventory": 1},
    }
    assert expected["expect"]["terminal"] == {"status": "failed"}
    assert expected["tier"] == "full"
    drafted = text.split("\nexpect:\n")[1].splitlines()
    for key in ("required:", "max_calls:", "status:"):
        line = next(x for x in drafted if x.strip().startswith(key))
        assert "REVIEW" in line, f"the reviewer is told what to decide about {key}"


def test_add_force_twice_changes_no_byte(corpus_dir: Path, cli: Cli) -> None:
    incident = EXAMPLES / "incidents/refund-success.json"
    assert cli("-C", corpus_dir, "add", incident, "--id", "r").code == 0
    case = corpus_dir / "cases/r"
    before = {p.name: p.read_bytes() for p in case.iterdir()}
    assert cli("-C", corpus_dir, "add", incident, "--id", "r", "--force").code == 0
    assert {p.name: p.read_bytes() for p in case.iterdir()} == before


def test_add_force_keeps_reviewed_expectations(corpus_dir: Path, cli: Cli) -> None:
    incident = EXAMPLES / "incidents/refund-success.json"
    assert cli("-C", corpus_dir, "add", incident, "--id", "r").code == 0
    expected = corpus_dir / "cases/r/expected.yaml"
    expected.write_text(expected.read_text().replace("owner: unassigned", "owner: payments"))
    code, out, _ = cli("-C", corpus_dir, "add", incident, "--id", "r", "--force")
    assert code == 0
    assert "owner: payments" in expected.read_text()
    assert f"kept the reviewed {expected} (not redrafted)" in out
    assert "lines marked REVIEW" not in out, "a kept file is not a new draft to review"
    code, out, _ = cli("-C", corpus_dir, "add", incident, "--id", "r", "--force", "--json")
    assert json.loads(out)["expected"] == "kept"


def test_add_new_case_says_its_draft_needs_review(corpus_dir: Path, cli: Cli) -> None:
    incident = EXAMPLES / "incidents/refund-success.json"
    code, out, _ = cli("-C", corpus_dir, "add", incident, "--id", "r", "--json")
    assert code == 0 and json.loads(out)["expected"] == "drafted"


def test_add_slice_keeps_seq_and_records_it(corpus_dir: Path, cli: Cli) -> None:
    incident = EXAMPLES / "incidents/refund-success.json"
    assert (
        cli("-C", corpus_dir, "add", incident, "--id", "s", "--start", "1", "--end", "2").code == 0
    )
    trace = yaml.safe_load((corpus_dir / "cases/s/trace.yaml").read_text())
    assert [e["seq"] for e in trace["events"]] == [1, 2]
    assert trace["source"]["slice"] == {"start": 1, "end": 2}
    assert trace["terminal"]["status"] == "unknown"


def test_add_slice_that_breaks_a_call_pair_is_refused(corpus_dir: Path, cli: Cli) -> None:
    incident = EXAMPLES / "incidents/refund-success.json"
    result = cli("-C", corpus_dir, "add", incident, "--id", "s", "--start", "1", "--end", "1")
    assert result.code == 2
    assert "no tool_call event answers it" in result.err
    assert _cases(corpus_dir) == []


def test_add_allow_incomplete_keeps_a_known_unknown(corpus_dir: Path, cli: Cli) -> None:
    incident = EXAMPLES / "incidents/cancel-refund-span-lost.json"
    assert cli("-C", corpus_dir, "add", incident, "--id", "k", "--allow-incomplete").code == 0
    expected = yaml.safe_load((corpus_dir / "cases/k/expected.yaml").read_text())
    assert expected["status"] == "known_unknown"
    assert any("neither result nor error" in p for p in expected["incomplete"])
    assert cli("-C", corpus_dir, "validate").code == 0


BAD_INPUTS = {
    "not-json": ("{ this is not json", [], "not valid JSON"),
    "not-an-incident": (json.dumps({"hello": "world"}), [], "not a recognised incident"),
    "dotdot-id": (json.dumps(_minimal()), ["--id", "../escape"], "invalid case id"),
    "empty-id": (json.dumps(_minimal()), ["--id", ""], "invalid case id"),
    "upper-id": (json.dumps(_minimal()), ["--id", "Bad Id"], "invalid case id"),
    "incomplete": (
        json.dumps(
            _minimal(
                events=[
                    {"seq": 1, "type": "tool_call", "tool": "t", "callId": "c1", "input": {}},
                    {"seq": 2, "type": "final", "status": "failed"},
                ]
            )
        ),
        [],
        "neither result nor error",
    ),
    "unknown-event": (
        json.dumps(_minimal(events=[{"seq": 1, "type": "telepathy"}])),
        [],
        "unknown event type",
    ),
    "bad-seq": (
        json.dumps(_minimal(events=[{"seq": "one", "type": "error"}])),
        [],
        "`seq` must be an integer",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_add_bad_input_exits_2_with_one_line_and_no_case(
    corpus_dir: Path, cli: Cli, tmp_path: Path, name: str
) -> None:
    text, flags, needle = BAD_INPUTS[name]
    incident = _incident(tmp_path, f"{name}.json", text)
    result = cli("-C", corpus_dir, "add", incident, *flags)
    assert result.code == 2
    assert result.err.count("\n") == 1, result.err
    assert needle in result.err
    assert "Traceback" not in result.err
    assert _cases(corpus_dir) == []
    assert not list((corpus_dir / "cases").glob(".*.tmp")), "no staging directory left behind"
    if name not in ("dotdot-id", "empty-id", "upper-id"):
        assert str(incident) in result.err, "the message names the file"


def test_add_existing_id_without_force_is_refused(corpus_dir: Path, cli: Cli) -> None:
    incident = EXAMPLES / "incidents/refund-success.json"
    assert cli("-C", corpus_dir, "add", incident, "--id", "r").code == 0
    before = (corpus_dir / "cases/r/trace.yaml").read_bytes()
    result = cli(
        "-C", corpus_dir, "add", EXAMPLES / "incidents/refund-wrong-unit.json", "--id", "r"
    )
    assert result.code == 2
    assert "exists" in result.err and "--force" in result.err
    assert (corpus_dir / "cases/r/trace.yaml").read_bytes() == before


def test_add_missing_file_and_directory_exit_2(corpus_dir: Path, cli: Cli, tmp_path: Path) -> None:
    missing = cli("-C", corpus_dir, "add", tmp_path / "nope.json")
    assert missing.code == 2 and "no such file" in missing.err
    empty = tmp_path / "empty"
    empty.mkdir()
    directory = cli("-C", corpus_dir, "add", empty)
    assert directory.code == 2 and "holds no incident files" in directory.err


def test_add_oversized_file_is_refused_before_parsing(
    corpus_dir: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORPUS_MAX_INPUT_BYTES", "100")
    incident = _incident(tmp_path, "big.json", json.dumps(_minimal()))
    result = cli("-C", corpus_dir, "add", incident)
    assert result.code == 2 and "over the 100-byte limit" in result.err
    assert _cases(corpus_dir) == []


def test_add_outside_a_corpus_exits_2(cli: Cli, tmp_path: Path) -> None:
    result = cli("add", EXAMPLES / "incidents/refund-success.json", cwd=tmp_path)
    assert result.code == 2
    assert "corpus init" in result.err


def test_add_json_output_is_machine_readable(corpus_dir: Path, cli: Cli) -> None:
    result = cli(
        "-C", corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "r", "--json"
    )
    assert result.code == 0
    report = json.loads(result.out)
    assert report["case"] == "r" and report["events"] == 6 and report["status"] == "active"


def test_cli_closed_pipe_is_quiet() -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    command = [sys.executable, "-m", "corpus_tool", "-C", str(EXAMPLES / "corpus"), "validate"]
    env = {"PYTHONPATH": str(ROOT), "PATH": ""}
    reader = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert reader.stdout is not None
    reader.stdout.close()  # like `corpus validate | head -0`
    _, err = reader.communicate()
    assert err == b""
