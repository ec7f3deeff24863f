"""The report's data from results documents: a summary, one light row per case for the list,
and per case the heavy part (checks, the aligned timeline), loaded lazily by the page."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corpus_tool.diff.inputs import Run, replayed
from corpus_tool.errors import CorpusError
from corpus_tool.gate.policy import Decision
from corpus_tool.gate.render import Sides, json_doc
from corpus_tool.model.events import ToolCallEvent, event_from_doc
from corpus_tool.model.trace import Terminal, Trajectory
from corpus_tool.report import timeline
from corpus_tool.version import __version__

Recordings = Callable[[str], "Trajectory | None"]
"""A case's recording (its trace.yaml as a run), or None when it cannot be read."""
SHOWN_WITHOUT_RECORDING = ("passed", "skipped")
"""Verdicts whose recording is not loaded: the replay matched it, its timeline is enough."""


@dataclass(frozen=True)
class View:
    """What the page shows: `head` (summary, list) parsed at load, `details` on first open."""

    head: dict[str, Any]
    details: dict[str, Any]


def run_view(doc: Mapping[str, Any], recordings: Recordings, meta: Sequence[Any] = ()) -> View:
    """A `replay` or `check` run: recording against replay for every case that did not pass."""
    cases = list(doc["cases"])
    details = {}
    for case in cases:
        wanted = case["verdict"] not in SHOWN_WITHOUT_RECORDING
        left = recordings(case["case"]) if wanted else None
        details[case["case"]] = _detail(case, left)
    head = {
        "kind": "run",
        "title": f"corpus {doc['command']}: {doc['corpus']}",
        "labels": ["recording", "replay"],
        "summary": dict(doc["summary"]),
        "meta": [*_meta(doc), *meta],
        "cases": [_entry(c) for c in cases],
        "waivers": list(doc.get("waivers") or []),
        "findings": list(doc.get("findings") or []),
    }
    return View(head, details)


def gate_view(
    base: Mapping[str, Any],
    head_doc: Mapping[str, Any],
    decision: Decision,
    sides: Sides,
    meta: Sequence[Any] = (),
    title: str = "corpus gate",
    labels: tuple[str, str] = ("base", "head"),
) -> View:
    """The merge gate: base against head per case, the gate's kinds and what blocks."""
    judged = json_doc(decision, sides)
    rows = {r["case"]: r for r in judged["cases"]}
    base_cases = {c["case"]: c for c in base["cases"]}
    details, entries = {}, []
    for case in head_doc["cases"]:
        row = rows.get(case["case"], {})
        before = base_cases.get(case["case"])
        left = _trajectory(before) if before is not None else None
        details[case["case"]] = {**_detail(case, left), "base_verdict": row.get("base")}
        entries.append({**_entry(case), "gate": row.get("kind"), "blocks": row.get("blocks")})
    counts = _kinds(judged["cases"])
    head = {
        "kind": "gate",
        "title": f"{title}: {head_doc['corpus']}",
        "labels": list(labels),
        "verdict": judged["verdict"],
        "summary": {**dict(head_doc["summary"]), **counts},
        "meta": [
            ["verdict", judged["verdict"]],
            [labels[0], sides.base],
            [labels[1], sides.head],
            *_meta(head_doc),
            *meta,
        ],
        "cases": entries,
        "waivers": list(head_doc.get("waivers") or []),
        "findings": list(head_doc.get("findings") or []),
        "removed": judged["removed"],
    }
    return View(head, details)


def pair_view(a: Run, b: Run, labels: tuple[str, str], verdict: str) -> View:
    """`corpus diff` of two traces: one case, A against B."""
    case = b.case or a.case or "run"
    rows = timeline.rows(a.trajectory, b.trajectory, None)
    detail = {"rows": rows, "ending": timeline.ending(a.trajectory, b.trajectory), "checks": []}
    entry = {"id": case, "verdict": verdict, "tier": "", "mode": "", "why": ""}
    head = {
        "kind": "diff",
        "title": f"corpus diff: {labels[0]} against {labels[1]}",
        "labels": list(labels),
        "summary": {"total": 1},
        "meta": [["A", labels[0]], ["B", labels[1]], ["verdict", verdict], *_tool()],
        "cases": [entry],
        "waivers": [],
        "findings": [],
    }
    return View(head, {case: detail})


def _entry(case: Mapping[str, Any]) -> dict[str, Any]:
    """The list's row of a case: light, parsed when the page opens."""
    return {
        "id": case["case"],
        "verdict": case["verdict"],
        "tier": case.get("tier") or "",
        "mode": case.get("mode") or "",
        "why": _why(case),
        "waived_by": list(case.get("waived_by") or []),
    }


def _detail(case: Mapping[str, Any], left: Trajectory | None) -> dict[str, Any]:
    """The heavy part of a case: checks, divergence, the aligned timeline, what it printed."""
    right = _trajectory(case)
    divergence = case.get("divergence")
    step = divergence.get("step") if isinstance(divergence, Mapping) else None
    detail: dict[str, Any] = {
        "checks": list(case.get("checks") or []),
        "divergence": divergence,
        "not_reached": list(case.get("not_reached") or []),
        "error": case.get("error"),
        "reason": case.get("reason"),
        "output": case.get("output") or "",
        "notes": list(case.get("notes") or []),
        "duration_ms": case.get("duration_ms"),
    }
    if right is not None:
        rows = timeline.rows(left, right, step)
        if step is None:
            _mark_failing_check(rows, detail["checks"])
        detail["rows"] = rows
        detail["ending"] = timeline.ending(left, right)
    return detail


SEQ = re.compile(r"\bseq (\d+)")


def _mark_failing_check(rows: list[Any], checks: Sequence[Mapping[str, Any]]) -> None:
    """Without a divergence, the first failed check is marked at the step its message names
    (`... at seq 4`): the replay's event of that seq."""
    for check in checks:
        found = (
            SEQ.search(str(check.get("message") or ""))
            if check.get("outcome") == "failed"
            else None
        )
        if found is None:
            continue
        seq = int(found.group(1))
        for row in rows:
            if isinstance(row.get("b"), Mapping) and row["b"].get("seq") == seq:
                row["failing_check"] = check.get("name")
                return
        return


def _trajectory(case: Mapping[str, Any]) -> Trajectory | None:
    """A case's replayed run, with the call it stopped at; None when it did not run."""
    stored = case.get("trajectory")
    if not isinstance(stored, Mapping):
        return None
    try:
        events = tuple(event_from_doc(e) for e in stored["events"])
        terminal = Terminal.from_doc(stored["terminal"])
    except (CorpusError, KeyError, TypeError, ValueError, AttributeError):
        return None  # the list still shows the case; its timeline says it did not run
    run = Trajectory(events, terminal)
    if _stopped_at_last(run, case.get("divergence")):
        return run
    return replayed(run, case.get("divergence"), case["case"]).trajectory


def _stopped_at_last(run: Trajectory, divergence: Any) -> bool:
    """The trajectory already ends with the call the replay stopped at (a ToolArguments
    divergence records it): adding it again would show one call twice."""
    actual = divergence.get("actual") if isinstance(divergence, Mapping) else None
    last = run.events[-1] if run.events else None
    if not isinstance(actual, Mapping) or not isinstance(last, ToolCallEvent):
        return False
    return (
        not last.answered
        and last.tool == actual.get("tool")
        and last.arguments == actual.get("arguments")
    )


def _why(case: Mapping[str, Any]) -> str:
    if case.get("error"):
        return f"error: {case['error']}"
    divergence = case.get("divergence")
    parts = []
    if isinstance(divergence, Mapping):
        parts.append(f"{divergence.get('kind')} at step {divergence.get('step')}")
    failed = [c for c in case.get("failed_checks") or [] if not str(c).startswith("replay.")]
    if failed:
        parts.append("failed: " + ", ".join(failed))
    return ", ".join(parts) or str(case.get("reason") or "")


def _kinds(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts = {"blocked": sum(1 for r in rows if r["blocks"])}
    for row in rows:
        counts[row["kind"]] = counts.get(row["kind"], 0) + 1
    return counts


def _meta(doc: Mapping[str, Any]) -> list[list[Any]]:
    total_ms = sum(float(c.get("duration_ms") or 0) for c in doc["cases"])
    return [
        ["corpus", doc["corpus"]],
        ["command", doc["command"]],
        ["written by", f"{doc['tool']['name']} {doc['tool']['version']}"],
        ["replay time", f"{total_ms / 1000:.2f} s (sum over cases)"],
    ]


def _tool() -> list[list[Any]]:
    return [["report by", f"corpus-tool {__version__}"]]
