"""`corpus add` on files with many runs (--select, --all) and on .eval archives."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
import yaml

from corpus_tool.cli import main
from corpus_tool.ingest.formats import inspect_ai


def _tau_run(task_id: int, error: bool = False) -> dict[str, object]:
    policy = "# Airline Agent Policy\n\nThe current time is 2024-05-15 15:00:00 EST.\n"
    result = "Error: 503 Service Unavailable" if error else '{"name": "Ann"}'
    return {
        "task_id": task_id,
        "trial": 0,
        "reward": 0.0 if error else 1.0,
        "info": {"reward_info": {"reward": 1.0}},
        "traj": [
            {"role": "system", "content": policy},
            {"role": "user", "content": "who am I?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"c{task_id}", "type": "function",
                 "function": {"name": "get_user", "arguments": '{"user_id": "u1"}'}}]},
            {"role": "tool", "tool_call_id": f"c{task_id}", "name": "get_user", "content": result},
            {"role": "assistant", "content": "You are Ann."},
            {"role": "user", "content": "thanks ###STOP###"},
        ],
    }  # fmt: skip


@pytest.fixture
def tau_file(tmp_path: Path) -> Path:
    path = tmp_path / "tool-calling-gpt-4o-0.0_range_0-2_user-gpt-4o-llm_0101.json"
    path.write_text(json.dumps([_tau_run(3), _tau_run(5, error=True)]))
    return path


def test_add_many_runs_without_choice_is_refused(
    corpus: Path, tau_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(corpus), "add", str(tau_file)]) == 2
    err = capsys.readouterr().err
    assert "holds 2 runs (task-3-trial-0, task-5-trial-0)" in err and "--select" in err


def test_add_select_picks_one_run_by_task_id(corpus: Path, tau_file: Path) -> None:
    assert main(["-C", str(corpus), "add", str(tau_file), "--select", "5", "--id", "tau-503"]) == 0
    text = (corpus / "cases/tau-503/trace.yaml").read_text()
    assert "&id" not in text  # each request spells out its messages: no YAML aliases
    trace = yaml.safe_load(text)
    (tool,) = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert tool["error"] == {"type": "ToolError", "message": "503 Service Unavailable"}
    assert trace["recorded"]["models"] == ["gpt-4o"]
    assert trace["terminal"]["status"] == "succeeded"
    assert trace["extra"]["reward"] == 0.0


def test_add_select_unknown_task_lists_runs(
    corpus: Path, tau_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(corpus), "add", str(tau_file), "--select", "9"]) == 2
    assert "no run with task id or label '9'" in capsys.readouterr().err


def test_add_all_writes_each_run_with_prefixed_ids(
    corpus: Path, tau_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(corpus), "add", str(tau_file), "--all", "--id", "airline"]) == 0
    cases = sorted(p.name for p in (corpus / "cases").iterdir() if p.is_dir())
    assert cases == ["airline-task-3-trial-0", "airline-task-5-trial-0"]
    assert capsys.readouterr().out.count("added case") == 2
    assert main(["-C", str(corpus), "validate"]) == 0


def test_add_all_is_all_or_nothing(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = _tau_run(7)
    broken["traj"] = broken["traj"][:3]  # type: ignore[index]  # the tool never answered
    path = tmp_path / "tool-calling-gpt-4o-0.0_range_0-2_user-x_1.json"
    path.write_text(json.dumps([_tau_run(3), broken]))
    assert main(["-C", str(corpus), "add", str(path), "--all"]) == 2
    assert "run task-7-trial-0: model asked for get_user" in capsys.readouterr().err
    assert not [p for p in (corpus / "cases").iterdir() if p.is_dir()]


def test_add_all_json_report(
    corpus: Path, tau_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(corpus), "add", str(tau_file), "--all", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["case"] for r in report] == ["task-3-trial-0", "task-5-trial-0"]
    assert {r["format"] for r in report} == {"tau-bench"}


def test_add_unknown_format_name(
    corpus: Path, tau_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(corpus), "add", str(tau_file), "--format", "nope"]) == 2
    assert "unknown format 'nope'; known: auto, native" in capsys.readouterr().err


def _eval_zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _sample() -> dict[str, object]:
    return {
        "id": 1, "epoch": 1, "input": "list files",
        "events": [
            {"event": "model", "timestamp": "2025-01-01T00:00:00+00:00", "model": "m/x",
             "input": [], "output": {"choices": [{"message": {
                 "role": "assistant", "content": "",
                 "tool_calls": [{"id": "t1", "function": "bash", "arguments": {"cmd": "ls"}}]}}]}},
            {"event": "tool", "timestamp": "2025-01-01T00:00:01+00:00", "id": "t1",
             "function": "bash", "arguments": {"cmd": "ls"}, "result": "",
             "error": {"type": "timeout", "message": "took too long"}},
        ],
    }  # fmt: skip


def test_add_eval_archive_ignores_entries_outside_samples(corpus: Path, tmp_path: Path) -> None:
    header = {
        "eval": {
            "task": "ls-task",
            "task_version": 2,
            "model": "m/x",
            "created": "2025-01-01T00:00:00+00:00",
        }
    }
    path = tmp_path / "run.eval"
    path.write_bytes(_eval_zip({
        "header.json": json.dumps(header).encode(),
        "samples/1_epoch_1.json": json.dumps(_sample()).encode(),
        "../../escape.json": b"{}",
    }))  # fmt: skip
    assert main(["-C", str(corpus), "add", str(path), "--id", "ls-timeout"]) == 0
    trace = yaml.safe_load((corpus / "cases/ls-timeout/trace.yaml").read_text())
    assert trace["events"][1]["error"] == {"type": "timeout", "message": "took too long"}
    assert not (tmp_path.parent / "escape.json").exists()


def test_add_eval_archive_bomb_is_refused(
    corpus: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(inspect_ai, "MAX_ENTRY_BYTES", 4096)  # the real limit is 64 MiB
    path = tmp_path / "bomb.eval"
    path.write_bytes(_eval_zip({"header.json": b"{}", "samples/1.json": b" " * 100_000}))
    assert main(["-C", str(corpus), "add", str(path)]) == 2
    assert "samples/1.json in the archive is over 4,096 bytes" in capsys.readouterr().err


def test_add_broken_eval_archive(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.eval"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    assert main(["-C", str(corpus), "add", str(path)]) == 2
    assert "not a readable .eval archive" in capsys.readouterr().err


def test_add_all_refuses_two_runs_with_one_case_id(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tool-calling-gpt-4o-0.0_range_0-2_user-x_2.json"
    path.write_text(json.dumps([_tau_run(3), _tau_run(3)]))
    assert main(["-C", str(corpus), "add", str(path), "--all"]) == 2
    assert "would both become case 'task-3-trial-0'" in capsys.readouterr().err
    assert not [p for p in (corpus / "cases").iterdir() if p.is_dir()]


def test_add_malformed_values_are_refused_not_a_crash(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _tau_run(3)
    run["traj"] = 5  # a number where tau-bench has the transcript
    path = tmp_path / "results.json"
    path.write_text(json.dumps([run]))
    assert main(["-C", str(corpus), "add", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not a well-formed tau-bench file: TypeError" in err and "internal error" not in err
