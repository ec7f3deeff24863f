"""`corpus report RESULTS.json [--base BASE.json] -o report.html`: a run or a gate as one
self-contained HTML file."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool.errors import CorpusError
from corpus_tool.gate.policy import judge
from corpus_tool.gate.render import SideNames
from corpus_tool.io import escapes
from corpus_tool.report import load
from corpus_tool.report.write import gate_report, run_report
from corpus_tool.store.corpus import Corpus, open_corpus


@dataclass(frozen=True)
class ReportOptions:
    """What the command line asked of `corpus report`."""

    results: Path
    output: Path
    base: Path | None = None


def report(
    directory: Path | None, cwd: Path, options: ReportOptions, today: date, out: TextIO
) -> int:
    """Write the report; 0 (the verdicts are the run's and the gate's business)."""
    head = load.results(options.results)
    if options.base is None:
        shown = run_report(options.output, head, _corpus(directory, cwd))
    else:
        base = load.results(options.base)
        sides = SideNames(str(options.base), str(options.results))
        shown = gate_report(options.output, base, head, judge(base, head, today), sides)
    out.write(escapes.line(f"wrote {options.output} ({shown} case(s))") + "\n")
    return 0


def _corpus(directory: Path | None, cwd: Path) -> Corpus | None:
    """The corpus the recordings come from; a report without one shows the replays alone."""
    try:
        return open_corpus(directory, cwd)
    except CorpusError:
        return None
