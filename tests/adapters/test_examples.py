"""The framework examples as shipped: their corpora pass `corpus check`, and the script that
recorded their incidents gives the same bytes on every run."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from examples import record_framework_incidents as story
from tests.adapters.team import FRAMEWORKS, PLANTED, checked, tool_calls
from tests.conftest import EXAMPLES, ROOT

CASES = {  # each case was added from the incident of the same name
    "openai_agents": ["refund-gateway-timeout"],
    "langchain": ["refund-gateway-timeout", "refund-recorded"],
    "pydantic_ai": ["refund-gateway-timeout"],
}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_example_corpus_passes_strict_replay_through_its_adapter(framework: str) -> None:
    code, report = checked(EXAMPLES / f"{framework}_corpus")
    verdicts = {c["case"]: (c["verdict"], c["mode"]) for c in report["cases"]}
    assert verdicts == {case: ("passed", "strict") for case in CASES[framework]}
    assert code == 0
    for case in report["cases"]:
        assert tool_calls(case["trajectory"]["events"]) == PLANTED


def test_example_incidents_script_is_byte_stable_and_made_the_committed_cases(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    subprocess.run(
        [sys.executable, str(EXAMPLES / "record_framework_incidents.py"), "--out", str(first)],
        check=True, capture_output=True, cwd=ROOT,
    )  # fmt: skip
    assert story.main(["--out", str(second)]) == 0  # another process, another hash seed
    written = sorted(p.relative_to(first) for p in first.rglob("*.json"))
    assert written == sorted(p.relative_to(second) for p in second.rglob("*.json"))
    assert len(written) == 4
    for name in written:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    for framework, cases in CASES.items():
        for case in cases:
            shipped = EXAMPLES / f"{framework}_agent" / "incidents" / f"{case}.json"
            trace = EXAMPLES / f"{framework}_corpus" / "cases" / case / "trace.yaml"
            source = yaml.safe_load(trace.read_text(encoding="utf-8"))["source"]
            assert source["sha256"] == hashlib.sha256(shipped.read_bytes()).hexdigest()
