"""`python -m bench` runs end to end on a few cases, so the benchmark cannot rot.

No timing is asserted (figures depend on the machine); what is checked is that every figure is
measured against its baseline and written where the README says.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

FIGURES = {
    "validate",
    "pre-commit",
    "redaction",
    "affected",
    "check",
    "add",
    "add (large)",
    "memory",
    "scale",
    "report",
    "live",
    "live-gate",
    "regrade",
    "http",
}


def test_the_bench_command_measures_every_figure_on_a_tiny_corpus(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    argv = [
        sys.executable,
        "-m",
        "bench",
        "--tiny",
        "--work",
        str(tmp_path / "w"),
        "--json",
        str(out),
    ]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    document = json.loads(out.read_text())
    rows = document["figures"]
    assert {r["figure"] for r in rows} == FIGURES
    for row in rows:
        if row["value"] is None and "skipped" in row["detail"]:  # no browser here: said why
            assert row["figure"] == "report" and row["met"] is None, row
            continue
        if row["value"] is None:  # a rate over a span too short to time: said, not faked as 0
            assert row["unit"].endswith("/s") and row["met"] is None and row["ratio"] is None, row
            continue
        assert isinstance(row["value"], (int, float)) and row["value"] >= 0, row
        if row["target"] and row["baseline"] and row["baseline_value"] is not None:
            assert row["ratio"] is not None or row["baseline_value"] == 0, row
    assert all(v != "not installed" for v in document["machine"]["versions"].values())
    scale = [r["measure"] for r in rows if r["figure"] == "scale"]
    for measure in (  # issue 27's rows at the scale corpus's size (40 cases in a tiny run)
        "corpus validate, warm, 40 cases",
        "validate --staged, one staged case (the hook), among 40 cases",
        "corpus affected, warm, 40 cases, one case changed",
        "corpus gate --base main, warm, 40 cases, one case changed",
        "corpus check, warm (validation cached), 40 cases",
        "peak memory, validate warm, 40 cases",
        "peak memory, check warm, 40 cases",
        "peak memory, gate, one case changed, 40 cases",
    ):
        assert measure in scale, (measure, scale)
    table = done.stdout
    assert table.count("\n| ") == len(rows) + 1 and "met" in table.splitlines()[0]


def test_compare_cli_runs_every_command_and_subcommand_of_the_parser() -> None:
    """A command added to the CLI and not to bench/compare_cli.py would escape the comparison."""
    from bench import compare_cli
    from corpus_tool.cli import parser

    commands = _choices(parser())
    assert sorted(compare_cli.COMMANDS) == sorted(commands)
    assert sorted(compare_cli.WAIVERS) == sorted(_choices(commands["waivers"]))
    steps = [(n, line) for n, line in compare_cli.STEPS if n != compare_cli.GIT]
    run = {_command(line) for name, line in steps if not name.endswith("help")}
    assert set(commands) <= run


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _command(line: str) -> str:
    words = shlex.split(line)
    return words[2] if words[:1] == ["-C"] else (words or [""])[0]
