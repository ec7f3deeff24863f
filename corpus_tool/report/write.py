"""Reports written beside a command's own output (`--html FILE` on check, replay, gate, diff)
and by `corpus report`: the corpus supplies recordings and the versions it records."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from corpus_tool.diff.inputs import Run
from corpus_tool.errors import CorpusError
from corpus_tool.gate.policy import Decision, judge
from corpus_tool.gate.render import SideNames
from corpus_tool.model.json import Json
from corpus_tool.model.results import Results
from corpus_tool.model.trace import Trajectory
from corpus_tool.replay.cases import load_case
from corpus_tool.report import html
from corpus_tool.report.view import Recordings, gate_view, pair_view, run_view
from corpus_tool.store.corpus import Corpus


def run_report(path: Path, results: Results, corpus: Corpus | None) -> int:
    """The report of a replay or check run; the number of cases it shows."""
    html.write(path, run_view(results, recordings(corpus), versions(corpus)))
    return len(results.cases)


def gate_report(
    path: Path, base: Results, head: Results, decision: Decision, sides: SideNames
) -> int:
    """The report of the gate: base against head; the number of cases it shows."""
    html.write(path, gate_view(base, head, decision, sides))
    return len(head.cases)


def diff_report(path: Path, labels: tuple[str, str], a: Run, b: Run, verdict: str) -> int:
    """`corpus diff --html` of two traces: A against B, steps aligned."""
    html.write(path, pair_view(a, b, labels, verdict))
    return 1


def suites_report(
    path: Path, labels: tuple[str, str], base: Results, head: Results, today: date
) -> int:
    """`corpus diff --html` of two results documents (as diff read them, JSON or YAML): each
    case A against B, as the gate lays them side by side (and judges them)."""
    sides = SideNames(*labels)
    decision = judge(base, head, today)
    html.write(path, gate_view(base, head, decision, sides, (), "corpus diff", ("A", "B")))
    return len(head.cases)


def recordings(corpus: Corpus | None) -> Recordings:
    """A case's trace.yaml as a run, from the corpus; None without one or when unreadable."""

    def recording(case_id: str) -> Trajectory | None:
        if corpus is None:
            return None
        try:
            trace = load_case(corpus, case_id).trace
        except (CorpusError, KeyError, TypeError, ValueError):
            return None  # the report still shows the replay
        return Trajectory(trace.events, trace.terminal)

    return recording


def versions(corpus: Corpus | None) -> list[Json]:
    """The agent and model versions corpus.yaml records, for the summary."""
    if corpus is None:
        return []
    agent = corpus.config.agent
    out: list[Json] = []
    if agent.prompt_version:
        out.append(["prompt version", agent.prompt_version])
    if agent.models:
        out.append(["models", ", ".join(agent.models)])
    return out
