"""Hostile agents: whatever the entrypoint does, `corpus` reports it per case, no traceback."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from corpus_tool.cli import main
from tests.replay.conftest import copy_corpus

AGENTS = {
    "odd_base_exception": """
        class Odd(BaseException):
            pass

        def run(case_input, rt):
            raise Odd("not an Exception")
    """,
    "self_referring_output": """
        def run(case_input, rt):
            out = {}
            out["self"] = out
            return {"status": "succeeded", "output": out}
    """,
    "mapping_that_raises": """
        class Sly(dict):
            def get(self, key, default=None):
                raise RuntimeError("gotcha")

        def run(case_input, rt):
            return Sly(status="succeeded")
    """,
    "error_whose_str_raises": """
        class Odd(Exception):
            def __str__(self):
                raise RuntimeError("no words")

        def run(case_input, rt):
            raise Odd()
    """,
    "emits_forever": """
        def run(case_input, rt):
            while True:
                try:
                    rt.emit("state_change", key="n", value=1)
                except Exception:
                    pass
    """,
    "swallows_the_event_limit": """
        def run(case_input, rt):
            try:
                while True:
                    rt.emit("state_change", key="n", value=1)
            except BaseException:
                raise ValueError("carried on")
    """,
    "prints_and_closes_stdout": """
        import sys

        def run(case_input, rt):
            print("agent chatter")
            sys.stdout.close()
            return {"status": "succeeded", "output": "done"}
    """,
}
VERDICT = {
    "odd_base_exception": "failed",
    "self_referring_output": "error",
    "mapping_that_raises": "error",
    "prints_and_closes_stdout": "failed",
    "emits_forever": "error",
    "swallows_the_event_limit": "error",
    "error_whose_str_raises": "failed",
}


def _corpus_with(tmp_path: Path, name: str, code: str) -> Path:
    corpus = copy_corpus(tmp_path, f"{name}_agent:run")
    (corpus / f"{name}_agent.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return corpus


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_hostile_agent_is_a_verdict_and_json_stays_valid(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus_with(tmp_path, name, AGENTS[name])
    code = main(["-C", str(corpus), "replay", "refund-success", "--format", "json"])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    case = json.loads(captured.out)["cases"][0]
    assert case["verdict"] == VERDICT[name]
    if name.startswith(("emits", "swallows")):
        assert "more than 10,000 events" in case["error"]
    assert "internal error" not in captured.err and "Traceback" not in captured.err


def test_agent_prints_are_the_failing_cases_captured_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus_with(tmp_path, "chatty", AGENTS["prints_and_closes_stdout"])
    main(["-C", str(corpus), "replay", "refund-success"])
    captured = capsys.readouterr()
    verdict, _, details = captured.out.partition("\n\n")
    assert verdict.startswith("FAIL  refund-success") and "agent chatter" not in verdict
    assert "captured output of the agent:\n    agent chatter\n" in details
    assert "agent chatter" not in captured.err


def test_agent_exiting_at_import_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus_with(tmp_path, "exits", "import sys\nsys.exit(3)\n")
    code = main(["-C", str(corpus), "check"])
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot import exits_agent" in err and "SystemExit" in err and err.count("\n") == 1


@pytest.mark.parametrize("count", ["0", "-1", "1000000000", "x"])
def test_repeat_outside_1_to_1000_is_a_usage_error(
    count: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["replay", "--repeat", count])
    assert stop.value.code == 2
    assert "give a number of runs from 1 to 1000" in capsys.readouterr().err


def test_import_error_whose_str_raises_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = (
        "class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError\n\nraise Odd()\n"
    )
    corpus = _corpus_with(tmp_path, "mute", code)
    assert main(["-C", str(corpus), "check"]) == 2
    err = capsys.readouterr().err
    assert "cannot import mute_agent" in err and "Odd whose str() fails" in err


def test_lone_surrogates_from_the_agent_reach_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = (
        "def run(case_input, rt):\n"
        "    rt.model([{'role': 'user', 'content': 'odd \\ud800'}])\n"
        "    return {'status': 'failed', 'output': 'odd \\udcff'}\n"
    )
    corpus = _corpus_with(tmp_path, "surrogate", code)
    junit, results = tmp_path / "j.xml", tmp_path / "r.json"
    argv = ["-C", str(corpus), "replay", "refund-success", "--junit", str(junit)]
    assert main([*argv, "--results", str(results)]) == 1, capsys.readouterr().err
    assert "odd \\\\ud800" in capsys.readouterr().out
    assert json.loads(results.read_text(encoding="utf-8"))["cases"][0]["verdict"] == "failed"
    assert "<testcase" in junit.read_text(encoding="utf-8")
