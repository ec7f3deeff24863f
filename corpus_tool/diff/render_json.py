"""Diffs as JSON-ready data (`corpus diff --format json`): stable keys, sorted lists."""

from __future__ import annotations

from corpus_tool.diff.pair import OneSided, PairDiff, StepDiff, Write
from corpus_tool.diff.suites import SuiteDiff
from corpus_tool.diff.verdict import DiffVerdict
from corpus_tool.model.field_diff import FieldDiff
from corpus_tool.model.json import JsonObject
from corpus_tool.model.values import ABSENT


def pair_data(diff: PairDiff, verdict: DiffVerdict) -> JsonObject:
    """One comparison of two runs (A, then B)."""
    return {
        "kind": "pair",
        **verdict_data(verdict),
        "first_divergence": step_data(diff.first) if diff.first else None,
        "steps": [step_data(s) for s in diff.steps],
        "tools": {
            "dropped": list(diff.tools_dropped),
            "added": list(diff.tools_added),
            "reordered": list(diff.tools_reordered),
            "calls": {"a": diff.tool_calls[0], "b": diff.tool_calls[1]},
        },
        "arguments": [_arguments(s) for s in diff.steps if s.change == "changed" and s.tool],
        "writes": [_write(w) for w in diff.writes],
        "notes": [_note(n) for n in diff.notes],
        "errors": {"new": list(diff.errors_new), "gone": list(diff.errors_gone)},
        "side_effects": [{"kind": k, "a": a, "b": b} for k, a, b in diff.side_effects],
        "egress": {"added": list(diff.egress_added), "gone": list(diff.egress_gone)},
        "terminal": {"a": diff.terminal[0], "b": diff.terminal[1], "worse": diff.worse_ending},
        "output_changed": diff.output_changed,
        "entities_lost": [
            {"kind": e.kind, "value": e.value, "text": e.text} for e in diff.entities_lost
        ],
    }


def verdict_data(verdict: DiffVerdict) -> JsonObject:
    """The verdict, its reasons, and the judge's opinion (null when no judge was asked)."""
    return {"verdict": verdict.verdict, "reasons": list(verdict.reasons), "judge": verdict.judge}


def step_data(step: StepDiff) -> JsonObject:
    """One differing step."""
    return {
        "step": step.number,
        "change": step.change,
        "a_seq": step.a_seq,
        "b_seq": step.b_seq,
        "a": step.a,
        "b": step.b,
        "wording": step.wording,
        "diff": [field_data(d) for d in step.diffs],
    }


def field_data(diff: FieldDiff) -> JsonObject:
    """A differing field: its path and each side's value (a side that lacks it is left out)."""
    out: JsonObject = {"path": diff.path}
    if diff.expected is not ABSENT:
        out["a"] = diff.expected
    if diff.actual is not ABSENT:
        out["b"] = diff.actual
    return out


def _note(note: OneSided) -> JsonObject:
    return {
        "step": note.step,
        "path": note.path,
        "only_in": "ab"[note.side],
        "value": note.value,
        "message": note.text(),
    }


def _write(write: Write) -> JsonObject:
    return {
        "step": write.step,
        "change": write.change,
        "name": write.name,
        "diff": [field_data(d) for d in write.diffs],
        "message": write.text(),
    }


def _arguments(step: StepDiff) -> JsonObject:
    changed = [d for d in step.diffs if d.path.startswith("$.arguments")]
    return {
        "step": step.number,
        "tool": step.tool,
        "a_seq": step.a_seq,
        "b_seq": step.b_seq,
        "diff": [field_data(d) for d in changed],
    }


def suite_data(suite: SuiteDiff) -> JsonObject:
    """Two whole runs: per-case verdicts and the distribution shift."""
    shift = suite.shift
    per_case = shift.per_case()
    return {
        "kind": "runs",
        "verdict": suite.worst,
        "summary": dict(suite.counts()),
        "cases": [
            {"case": c.case, **verdict_data(c.verdict)}
            | ({"diff": pair_data(c.diff, c.verdict)} if c.diff is not None else {})
            for c in suite.cases
        ],
        "not_compared": list(suite.not_compared),
        "shift": {
            "compared": shift.compared,
            "tool_calls": {"base": shift.tool_calls[0], "head": shift.tool_calls[1]},
            "tool_calls_per_case": {"base": per_case[0], "head": per_case[1]},
            "dropped": dict(shift.dropped),
            "added": dict(shift.added),
            "terminal": {s: {"base": a, "head": b} for s, (a, b) in shift.terminal.items()},
        },
    }
