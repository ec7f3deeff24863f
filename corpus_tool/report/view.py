"""The report's data from typed results: a summary, one light row per case for the list, and
per case the heavy part (checks, the aligned timeline), loaded lazily by the page.

Everything here reads `Results`, `CaseOutcome` and the gate's `Decision`; what goes into the
page is built as `JsonObject` (the page's script reads the same keys as before the model)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from corpus_tool.diff.inputs import Run, replayed
from corpus_tool.gate.policy import Decision, Row
from corpus_tool.gate.render import SideNames
from corpus_tool.model.checks import CheckResult
from corpus_tool.model.divergence import Divergence
from corpus_tool.model.events import ToolCallEvent
from corpus_tool.model.findings import Finding
from corpus_tool.model.json import Json, JsonObject
from corpus_tool.model.results import (
    CaseOutcome,
    FieldNote,
    LiveModelCall,
    LiveTotals,
    ProviderFailure,
    Results,
    UnmatchedCall,
    Verdict,
)
from corpus_tool.model.trace import Trajectory
from corpus_tool.model.waiver import ACTIVE, Broken, Waiver
from corpus_tool.report import timeline
from corpus_tool.version import __version__

Recordings = Callable[[str], "Trajectory | None"]
"""A case's recording (its trace.yaml as a run), or None when it cannot be read."""
SHOWN_WITHOUT_RECORDING = (Verdict.PASSED, Verdict.SKIPPED)
"""Verdicts whose recording is not loaded: the replay matched it, its timeline is enough."""
TOOL = "corpus-tool"
"""The `tool.name` of every results document (the schema's const)."""


@dataclass(frozen=True)
class PageData:
    """What the page shows: `head` (summary, list) parsed at load, `details` on first open."""

    head: JsonObject
    details: JsonObject


def run_view(results: Results, recordings: Recordings, meta: Sequence[Json] = ()) -> PageData:
    """A `replay` or `check` run: recording against replay for every case that did not pass."""
    details: JsonObject = {}
    for case in results.cases:
        wanted = case.verdict not in SHOWN_WITHOUT_RECORDING
        details[case.case] = _detail(case, recordings(case.case) if wanted else None)
    head: JsonObject = {
        "kind": "run",
        "title": f"corpus {results.command}: {results.corpus}",
        "labels": ["recording", "replay"],
        "summary": dict(results.summary),
        "meta": [*_meta(results), *meta],
        "cases": [_entry(c) for c in results.cases],
        "waivers": _waivers(results),
        "findings": _findings(results),
        **_live_totals(results.live),
    }
    return PageData(head, details)


def gate_view(
    base: Results,
    head_results: Results,
    decision: Decision,
    sides: SideNames,
    meta: Sequence[Json] = (),
    title: str = "corpus gate",
    labels: tuple[str, str] = ("base", "head"),
) -> PageData:
    """The merge gate: base against head per case, the gate's kinds and what blocks."""
    rows = {r.case: r for r in decision.rows}
    base_cases = base.by_case()
    details: JsonObject = {}
    entries: list[Json] = []
    for case in head_results.cases:
        row = rows.get(case.case)
        before = base_cases.get(case.case)
        left = _trajectory(before) if before is not None else None
        details[case.case] = {**_detail(case, left), "base_verdict": _base(row)}
        entries.append({**_entry(case), "gate": _kind(row), "blocks": _blocks(row)})
    verdict = "blocked" if decision.blocked else "passed"
    head: JsonObject = {
        "kind": "gate",
        "title": f"{title}: {head_results.corpus}",
        "labels": list(labels),
        "verdict": verdict,
        "summary": {**dict(head_results.summary), **_kinds(decision.rows)},
        "meta": [
            ["verdict", verdict],
            [labels[0], sides.base],
            [labels[1], sides.head],
            *_meta(head_results),
            *meta,
        ],
        "cases": entries,
        "waivers": _waivers(head_results),
        "findings": _findings(head_results),
        "removed": list(decision.removed),
        **_live_totals(head_results.live),
    }
    return PageData(head, details)


def pair_view(a: Run, b: Run, labels: tuple[str, str], verdict: str) -> PageData:
    """`corpus diff` of two traces: one case, A against B."""
    case = b.case or a.case or "run"
    rows: list[Json] = [*timeline.rows(a.trajectory, b.trajectory, None)]
    detail: JsonObject = {
        "rows": rows,
        "ending": timeline.ending(a.trajectory, b.trajectory),
        "checks": [],
    }
    entry: JsonObject = {"id": case, "verdict": verdict, "tier": "", "mode": "", "why": ""}
    head: JsonObject = {
        "kind": "diff",
        "title": f"corpus diff: {labels[0]} against {labels[1]}",
        "labels": list(labels),
        "summary": {"total": 1},
        "meta": [["A", labels[0]], ["B", labels[1]], ["verdict", verdict], *_tool()],
        "cases": [entry],
        "waivers": [],
        "findings": [],
    }
    return PageData(head, {case: detail})


def _entry(case: CaseOutcome) -> JsonObject:
    """The list's row of a case: light, parsed when the page opens."""
    return {
        "id": case.case,
        "verdict": case.verdict.value,
        "tier": case.tier,
        "mode": case.mode.value if case.mode is not None else "",
        "why": _why(case),
        "waived_by": list(case.waived_by),
        **_live_entry(case),
    }


def _live_totals(totals: LiveTotals | None) -> JsonObject:
    """The summary's live tiles: what the live model cost the run (nothing for a recorded run)."""
    if totals is None:
        return {}
    live: JsonObject = {
        "model_calls": totals.model_calls,
        "input_tokens": totals.input_tokens,
        "output_tokens": totals.output_tokens,
        "model_ms": totals.model_ms,
        "skipped_budget": totals.skipped_budget,
    }
    return {"live": live}


def _live_entry(case: CaseOutcome) -> JsonObject:
    """The list's live figures of a case: passes out of attempts, tokens, what went wrong."""
    if case.live is None and case.attempts is None:
        return {}
    usage = case.live
    live: JsonObject = {
        "attempts": case.attempts,
        "passes": case.passes,
        "k": case.k,
        "input_tokens": usage.input_tokens if usage is not None else 0,
        "output_tokens": usage.output_tokens if usage is not None else 0,
        "unmatched": len(case.unmatched),
        "provider_errors": len(case.provider_errors),
    }
    return {"live": live}


def _live_detail(case: CaseOutcome) -> JsonObject:
    """The case's live part: each model call, the unmatched tool calls, the provider errors."""
    usage = case.live
    if usage is None:
        return {}
    live: JsonObject = {
        "live_from": usage.live_from,
        "model_ms": usage.model_ms,
        "calls": [_live_call(c) for c in usage.calls],
        "unmatched": [_unmatched(u) for u in case.unmatched],
        "provider_errors": [_failure(e) for e in case.provider_errors],
    }
    return {"live": live}


def _live_call(call: LiveModelCall) -> JsonObject:
    return {
        "attempt": call.attempt,
        "step": call.step,
        "model": call.model,
        "input_tokens": call.input_tokens,
        "output_tokens": call.output_tokens,
        "duration_ms": call.duration_ms,
        "provider_errors": [_failure(e) for e in call.provider_errors],
        "failed": call.failed,
    }


def _unmatched(call: UnmatchedCall) -> JsonObject:
    return {"seq": call.seq, "tool": call.tool, "arguments": dict(call.arguments)}


def _failure(error: ProviderFailure) -> JsonObject:
    return {"status": error.status, "message": error.message}


def _detail(case: CaseOutcome, left: Trajectory | None) -> JsonObject:
    """The heavy part of a case: checks, divergence, the aligned timeline, what it printed."""
    right = _trajectory(case)
    divergence = case.divergence
    detail: JsonObject = {
        "checks": [c.to_dict() for c in case.checks],
        "divergence": divergence.as_dict() if divergence is not None else None,
        "not_reached": list(case.not_reached),
        "error": case.error,
        "reason": case.reason,
        "output": case.output,
        "notes": [_note(n) for n in case.notes],
        "duration_ms": case.duration_ms,
        **_live_detail(case),
    }
    if right is not None:
        step = divergence.step if divergence is not None else None
        rows: list[Json] = [*timeline.rows(left, right, step, _failing_check(case.checks))]
        detail["rows"] = rows
        detail["ending"] = timeline.ending(left, right)
    return detail


SEQ = re.compile(r"\bseq (\d+)")


def _failing_check(checks: Sequence[CheckResult]) -> timeline.FailingCheck | None:
    """The first failed check whose message names a step (`... at seq 4`): without a
    divergence, the report marks it at the replay's event of that seq."""
    for check in checks:
        found = SEQ.search(check.message) if check.failed else None
        if found is not None:
            return timeline.FailingCheck(check.name, int(found.group(1)))
    return None


def _trajectory(case: CaseOutcome) -> Trajectory | None:
    """A case's replayed run, with the call it stopped at; None when it did not run."""
    run = case.trajectory
    if run is None or _stopped_at_last(run, case.divergence):
        return run
    return replayed(run, case.divergence, case.case).trajectory


def _stopped_at_last(run: Trajectory, divergence: Divergence | None) -> bool:
    """The trajectory already ends with the call the replay stopped at (a ToolArguments
    divergence records it): adding it again would show one call twice."""
    actual = divergence.actual if divergence is not None else None
    last = run.events[-1] if run.events else None
    if not isinstance(actual, Mapping) or not isinstance(last, ToolCallEvent):
        return False
    return (
        not last.answered
        and last.tool == actual.get("tool")
        and last.arguments == actual.get("arguments")
    )


def _why(case: CaseOutcome) -> str:
    if case.error:
        return f"error: {case.error}"
    parts = []
    if case.divergence is not None:
        parts.append(f"{case.divergence.kind} at step {case.divergence.step}")
    failed = [c for c in case.failed_checks if not c.startswith("replay.")]
    if failed:
        parts.append("failed: " + ", ".join(failed))
    return ", ".join(parts) or (case.reason or "")


def _note(note: FieldNote) -> JsonObject:
    return {
        "path": note.path,
        "carried_by": note.carried_by,
        "steps": list(note.steps),
        "message": note.message,
    }


def _waivers(results: Results) -> list[Json]:
    """The run's waivers as the document records them: each with its state then."""
    return [_waiver(w, results.waiver_states.get(w.id, ACTIVE)) for w in results.waivers]


def _waiver(waiver: Waiver | Broken, state: str) -> JsonObject:
    if isinstance(waiver, Broken):
        return waiver.as_dict()
    return {**waiver.as_dict(), "state": state}


def _findings(results: Results) -> list[Json]:
    return [_finding(f) for f in results.findings]


def _finding(finding: Finding) -> JsonObject:
    return {
        "path": finding.path,
        "line": finding.line,
        "json_path": finding.json_path,
        "rule": finding.rule,
        "message": finding.message,
    }


def _base(row: Row | None) -> Json:
    return row.base.value if row is not None and row.base is not None else None


def _kind(row: Row | None) -> Json:
    return row.kind.value if row is not None else None


def _blocks(row: Row | None) -> Json:
    return row.blocks if row is not None else None


def _kinds(rows: Sequence[Row]) -> JsonObject:
    counts: dict[str, int] = {"blocked": sum(1 for r in rows if r.blocks)}
    for row in rows:
        counts[row.kind.value] = counts.get(row.kind.value, 0) + 1
    return {**counts}


def _meta(results: Results) -> list[Json]:
    total_ms = sum(c.duration_ms for c in results.cases)
    return [
        ["corpus", results.corpus],
        ["command", results.command],
        ["written by", f"{TOOL} {results.tool_version}"],
        ["replay time", f"{total_ms / 1000:.2f} s (sum over cases)"],
    ]


def _tool() -> list[Json]:
    return [["report by", f"corpus-tool {__version__}"]]
