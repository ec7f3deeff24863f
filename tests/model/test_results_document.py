"""A results document read back (`gate`, `status`, `waivers unused`): typed at the door, and a
foreign or malformed one refused in one line that names the file, exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.model.divergence import DivergenceKind
from corpus_tool.model.results import Verdict, read_results
from corpus_tool.model.values import ABSENT
from tests.conftest import Cli

CASE: dict[str, Any] = {
    "case": "refund",
    "verdict": "failed",
    "tier": "fast",
    "mode": "strict",
    "duration_ms": 1.0,
    "failed_checks": ["replay.divergence"],
    "divergence": {
        "kind": "ToolArguments",
        "step": 2,
        "message": "the agent sent other arguments",
        "diff": [{"path": "$.arguments.amount", "actual": 19}],
    },
    "trajectory": {"events": [], "terminal": {"status": "failed"}},
}


def _document(path: Path, cases: list[dict[str, Any]], waivers: list[dict[str, Any]]) -> Path:
    doc = {
        "schema_version": 1,
        "tool": {"name": "corpus-tool", "version": "0"},
        "command": "replay",
        "corpus": "shop",
        "summary": {
            "total": len(cases),
            **{v.value: sum(c["verdict"] == v for c in cases) for v in Verdict},
        },
        "cases": cases,
        "waivers": waivers,
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_results_document_reads_back_as_the_typed_values_it_records(tmp_path: Path) -> None:
    results = read_results(_document(tmp_path / "r.json", [CASE], []))
    outcome = results.by_case()["refund"]
    assert outcome.verdict is Verdict.FAILED and outcome.raw_verdict is Verdict.FAILED
    assert outcome.divergence is not None
    assert outcome.divergence.kind is DivergenceKind.TOOL_ARGUMENTS
    [item] = outcome.divergence.diff
    assert (item.path, item.expected, item.actual) == ("$.arguments.amount", ABSENT, 19)
    assert outcome.trajectory is not None and outcome.trajectory.terminal.status == "failed"


END = {"status": "failed"}
WAIVER = {"id": "W-1", "state": "active", "case": "refund", "checks": ["all"]}
MALFORMED = {
    "foreign": ({"events": [], "recorded": {}}, "not a results document ("),
    "twice": ([CASE, CASE], "lists case 'refund' more than once"),
    "no-such-day": (
        [WAIVER | {"reason": "r", "owner": "o", "expires": "2026-02-30"}],
        "not a results document (waiver W-1: expires '2026-02-30' is not a date)",
    ),
    "event": (
        [CASE | {"trajectory": {"events": [{"seq": 1, "type": "nope"}], "terminal": END}}],
        "case refund: a replayed event cannot be read",
    ),
}


@pytest.mark.parametrize("what", sorted(MALFORMED))
@pytest.mark.parametrize("command", ["gate", "status", "waivers unused"])
def test_a_foreign_or_malformed_results_document_is_one_line_naming_it_exit_2(
    tmp_path: Path, cli: Cli, corpus_dir: Path, what: str, command: str
) -> None:
    content, said = MALFORMED[what]
    path = tmp_path / "given.json"
    if what == "foreign":
        path.write_text(json.dumps(content), encoding="utf-8")
    elif what == "no-such-day":
        _document(path, [CASE], content)
    else:
        _document(path, content, [])
    args = [path, path] if command == "gate" else ["--results", path]
    ran = cli("-C", corpus_dir, *command.split(), *args)
    assert ran.code == 2, ran
    assert len(ran.err.strip().splitlines()) == 1 and str(path) in ran.err, ran.err
    assert said in ran.err
