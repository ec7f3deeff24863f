"""The results document of a run (input of `corpus gate`), JUnit XML, and the text report.

This module writes the document; `corpus_tool.model.results` reads it back (`read_results`)
into the typed `Results`, for every reader."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from corpus_tool.io import escapes, files
from corpus_tool.model.checks import NOT_REACHED
from corpus_tool.model.field_diff import FieldDiff
from corpus_tool.model.results import Verdict
from corpus_tool.model.trace import Trajectory
from corpus_tool.model.values import ABSENT
from corpus_tool.model.vocabulary import unreachable
from corpus_tool.replay.cases import CaseResult
from corpus_tool.replay.ledger import Totals
from corpus_tool.stats.exact import wilson
from corpus_tool.store.corpus import Corpus
from corpus_tool.version import __version__

RESULTS_VERSION = 1
LABELS = {
    Verdict.PASSED: "PASS",
    Verdict.FAILED: "FAIL",
    Verdict.ERROR: "ERROR",
    Verdict.KNOWN_UNKNOWN: "KNOWN",
    Verdict.SKIPPED: "SKIP",
    Verdict.WAIVED: "WAIVED",
    Verdict.FLAKY: "FLAKY",
    Verdict.STALE: "STALE",
}

EXPLAINED = frozenset({Verdict.FAILED, Verdict.KNOWN_UNKNOWN, Verdict.WAIVED, Verdict.FLAKY})
"""The verdicts whose failed checks the details explain."""


def case_dict(result: CaseResult) -> dict[str, Any]:
    """One case of the results document."""
    return {
        "case": result.case,
        "verdict": result.verdict.value,
        "status": result.status,
        "tier": result.tier,
        "tags": list(result.tags),
        "mode": result.mode,
        "duration_ms": result.duration_ms,
        "failed_checks": result.failed_checks,
        "not_reached": result.not_reached,
        "checks": [c.to_dict() for c in result.checks],
        "divergence": result.divergence.as_dict() if result.divergence else None,
        "sequence_diff": list(result.sequence_diff),
        "unused": list(result.unused),
        "notes": [n.as_dict() for n in result.notes],
        "error": result.error,
        "reason": result.reason,
        "output": result.output,
        **({} if result.ended_at is None else {"ended_at": result.ended_at}),
        "stack": list(result.stack),
        "waived_by": [w.id for w in result.waivers] if result.verdict is Verdict.WAIVED else [],
        **({"trajectory": trajectory_doc(result.trajectory)} if result.trajectory else {}),
        **({"trace_key": result.trace_key} if result.trace_key else {}),
        **({"replay_key": result.replay_key} if result.replay_key else {}),
        **({"recorded_end": dict(result.recorded_end)} if result.recorded_end else {}),
        **live_fields(result),
    }


def live_fields(result: CaseResult) -> dict[str, Any]:
    """What a live run adds to its case: the live calls (usage, latency, provider errors),
    the unmatched tool calls, and passes out of attempts (nothing for a recorded run)."""
    live = result.live
    if live is None:
        return {}
    return {
        "live": {
            "live_from": live.live_from,
            "input_tokens": sum(c.input_tokens for c in live.calls),
            "output_tokens": sum(c.output_tokens for c in live.calls),
            "model_ms": round(sum(c.duration_ms for c in live.calls), 2),
            "calls": [c.as_dict() for c in live.calls],
        },
        "provider_errors": [e.as_dict() for e in live.provider_errors],
        "unmatched": list(live.unmatched),
        "attempts": live.attempts,
        "passes": live.passes,
        "k": live.attempts,
        "pass_at_k": live.passes > 0,
        "pass_hat_k": live.passes == live.attempts,
        "interval": list(wilson(live.passes, live.attempts).rounded()),
        **({"runs": [_run(i, r) for i, r in enumerate(live.runs)]} if live.runs else {}),
    }


def _run(attempt: int, result: CaseResult) -> dict[str, Any]:
    """One --repeat attempt of a live case: its verdict, failed checks and trajectory."""
    return {
        "attempt": attempt,
        "verdict": result.verdict.value,
        "failed_checks": result.failed_checks,
        "error": result.error,
        **({"trajectory": trajectory_doc(result.trajectory)} if result.trajectory else {}),
    }


def attempts_text(result: CaseResult) -> str:
    """`(passed 3 of 10)  pass@10 yes, pass^10 no, 95% [0.11, 0.60]` for a live --repeat."""
    live = result.live
    if live is None or live.attempts <= 1:
        return ""
    k, passes = live.attempts, live.passes
    yes = {True: "yes", False: "no"}
    return (
        f"  (passed {passes} of {k})  pass@{k} {yes[passes > 0]}, pass^{k} "
        f"{yes[passes == k]}, 95% {wilson(passes, k).shown()}"
    )


def trajectory_doc(trajectory: Trajectory) -> dict[str, Any]:
    """A replayed run in the results document: events and terminal in trace.yaml form."""
    return {
        "events": [e.to_doc() for e in trajectory.events],
        "terminal": trajectory.terminal.to_doc(),
    }


def summary(results: Iterable[CaseResult]) -> dict[str, int]:
    """How many cases got each verdict, plus the total."""
    counts = Counter(r.verdict for r in results)
    # `flaky` and `stale` only when a case was: a recorded run's document keeps its keys
    rare = (Verdict.FLAKY, Verdict.STALE)
    shown = [v for v in Verdict if v not in rare or counts.get(v)]
    return {"total": sum(counts.values()), **{v.value: counts.get(v, 0) for v in shown}}


def document(
    corpus: Corpus,
    results: Sequence[CaseResult],
    command: str,
    waivers: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The stable results document: cases sorted by id, keys in a fixed order; `waivers` are
    the corpus's check waivers with their state (what the gate reads back)."""
    return {
        "schema_version": RESULTS_VERSION,
        "tool": {"name": "corpus-tool", "version": __version__},
        "command": command,
        "corpus": corpus.root.name if corpus.config.name is None else corpus.config.name,
        "summary": summary(results),
        "cases": [case_dict(r) for r in sorted(results, key=lambda r: r.case)],
        "waivers": [dict(w) for w in waivers],
        **_live_totals(results),
    }


def _live_totals(results: Sequence[CaseResult]) -> dict[str, Any]:
    totals = Totals.of(results)
    return {"live": totals.as_dict()} if totals is not None else {}


def write_results(path: Path, doc: dict[str, Any]) -> None:
    """Write the results document atomically."""
    files.atomic_write(path, files.json_text(doc))


def write_junit(path: Path, corpus: Corpus, results: Sequence[CaseResult]) -> None:
    """JUnit XML: a testcase per case; failures carry the divergence and failed checks."""
    counts = summary(results)
    suite = ElementTree.Element(
        "testsuite",
        name="corpus" if corpus.config.name is None else corpus.config.name,
        tests=str(counts["total"]),
        failures=str(counts["failed"] + counts.get("flaky", 0) + counts.get("stale", 0)),
        errors=str(counts["error"]),
        skipped=str(counts["known_unknown"] + counts["skipped"] + counts["waived"]),
        time=f"{sum(r.duration_ms for r in results) / 1000:.3f}",
    )
    totals = Totals.of(results)
    if totals is not None:  # what the live model cost, for CI dashboards
        props = ElementTree.SubElement(suite, "properties")
        for name, value in totals.as_dict().items():
            ElementTree.SubElement(props, "property", name=f"live.{name}", value=str(value))
    for result in sorted(results, key=lambda r: r.case):
        _junit_case(suite, result)
    tree = ElementTree.ElementTree(suite)
    ElementTree.indent(tree)
    text = ElementTree.tostring(suite, encoding="unicode", xml_declaration=True)
    files.atomic_write(path, escapes.xml(text) + "\n")


def _junit_case(suite: ElementTree.Element, result: CaseResult) -> None:
    case = ElementTree.SubElement(
        suite,
        "testcase",
        classname=f"corpus.{result.tier}",
        name=result.case,
        time=f"{result.duration_ms / 1000:.3f}",
    )
    body = "\n".join(detail_lines(result))
    props = ElementTree.SubElement(case, "properties")
    if result.not_reached:  # distinct from failures: the run stopped before these
        ElementTree.SubElement(
            props, "property", name="not_reached", value=" ".join(result.not_reached)
        )
    if result.live is not None:
        for name, value in _junit_live(result).items():
            ElementTree.SubElement(props, "property", name=name, value=str(value))
    if not len(props):
        case.remove(props)
    match result.verdict:
        case Verdict.FAILED | Verdict.FLAKY:
            ElementTree.SubElement(case, "failure", message=headline(result)).text = body
        case Verdict.ERROR:
            ElementTree.SubElement(case, "error", message=result.error or "error").text = body
        case Verdict.KNOWN_UNKNOWN | Verdict.SKIPPED:
            message = result.reason or result.verdict.value
            ElementTree.SubElement(case, "skipped", message=message)
        case Verdict.WAIVED:  # it ran and failed; a reviewed waiver excuses it
            ElementTree.SubElement(case, "skipped", message=waived_line(result)).text = body
        case Verdict.STALE:  # not graded: the trace changed since the run
            ElementTree.SubElement(case, "failure", message=result.reason or "stale")
        case Verdict.PASSED:
            pass
        case _:
            unreachable(result.verdict)
    if result.output and result.counts_as_failure:
        ElementTree.SubElement(case, "system-out").text = result.output


def _junit_live(result: CaseResult) -> dict[str, Any]:
    fields = live_fields(result)
    return {
        "live.input_tokens": fields["live"]["input_tokens"],
        "live.output_tokens": fields["live"]["output_tokens"],
        "live.model_ms": fields["live"]["model_ms"],
        "live.unmatched": len(fields["unmatched"]),
        "live.attempts": fields["attempts"],
        "live.passes": fields["passes"],
        "live.pass_at_k": str(fields["pass_at_k"]).lower(),
        "live.pass_hat_k": str(fields["pass_hat_k"]).lower(),
        "live.interval": " ".join(str(x) for x in fields["interval"]),
        **{f"live.attempt.{r['attempt']}": r["verdict"] for r in fields.get("runs", ())},
    }


def headline(result: CaseResult) -> str:
    """One line per case: verdict, id, mode, and why it failed."""
    tag = LABELS[result.verdict]
    # WAIVED fills the label column: one space after it, the case column one narrower
    label = f"{tag:<6}{result.case:<30}" if len(tag) < 6 else f"{tag} {result.case:<29}"
    if result.verdict is Verdict.ERROR:
        return f"{label}  {result.error}"
    if result.verdict is Verdict.SKIPPED:
        return f"{label}  ({result.reason})"
    if result.verdict is Verdict.STALE:
        return f"{label}  {result.reason}"
    why = reason(result)
    extra = "  (known_unknown: never counted)" if result.verdict is Verdict.KNOWN_UNKNOWN else ""
    if result.verdict is Verdict.WAIVED:
        extra = f"  {waived_line(result)}"
    extra += attempts_text(result)
    # no timing here: the text report of an unchanged corpus is the same on every run, with
    # any number of workers (durations are in --results and the JUnit file)
    return f"{label}  [{result.mode}]{'  ' + why if why else ''}{extra}"


def waived_line(result: CaseResult) -> str:
    """`waived by W-0001 (owner payments-team, expires 2026-12-31)`."""
    return "waived by " + ", ".join(w.shown() for w in result.waivers)


def reason(result: CaseResult) -> str:
    """Why a run failed, root cause first: `ToolArguments at step 5, failed: tools.args; 1 not
    reached` (empty for a passing run)."""
    if result.verdict is Verdict.ERROR:
        return f"error: {result.error}"
    why = ""
    if result.ended_at is not None:  # a variant's reaction the recording cannot answer
        why = (
            f"ended at step {result.ended_at}: the recording cannot answer the reaction to the "
            "fault; `--model live` runs the rest"
        )
    elif result.divergence:  # the root cause first
        why = f"{result.divergence.kind} at step {result.divergence.step}"
    failed = [c for c in result.failed_checks if not c.startswith("replay.")]
    if failed:
        why = ", ".join(filter(None, [why, "failed: " + ", ".join(failed)]))
    if "replay.determinism" in result.failed_checks:
        why = ", ".join(filter(None, [why, "nondeterministic across --repeat"]))
    if result.not_reached:
        why += f"; {len(result.not_reached)} not reached"
    return why


def detail_lines(result: CaseResult, verbose: bool = False) -> list[str]:
    """What a reader needs to see why a case failed or erred: the divergence first, the checks
    the run contradicted, the checks it never reached, the sequence diff, where a stopped worker
    was stuck, and what the agent printed; with `verbose`, the case's notes."""
    lines = _failure_lines(result, verbose)
    if result.verdict is Verdict.ERROR and result.stack:
        lines.append("where the worker was stuck (main thread, innermost call first):")
        lines.extend(f"  {line.strip()}" for line in result.stack)
    if result.output and (lines or result.verdict is Verdict.ERROR):
        lines.append("captured output of the agent:")
        lines.extend(f"  {line}" for line in result.output.splitlines())
    if verbose:
        lines.extend(f"note: {note.text()}" for note in result.notes)
    return lines


def _failure_lines(result: CaseResult, verbose: bool) -> list[str]:
    if result.verdict not in EXPLAINED or not result.failed_checks:
        return []
    lines: list[str] = []
    if result.waivers:
        lines.extend(_waiver_lines(result))
    d = result.divergence
    if d is not None:
        lines.append(f"divergence {d.kind} at step {d.step}: {d.message}")
        if d.candidate:
            lines.append(f"  nearest recorded candidate: {_compact(d.candidate)}")
        for item in d.diff:
            lines.append(f"    {_diff_text(item)}")
    for check in result.checks:
        if check.failed:
            lines.append(f"check {check.name} failed: {check.message}")
    if result.not_reached and d is not None:
        lines.append(
            f"not reached (the run stopped at step {d.step} before they could be decided): "
            + ", ".join(result.not_reached)
        )
        if verbose:
            lines.extend(
                f"  {c.name}: {c.message}" for c in result.checks if c.outcome == NOT_REACHED
            )
    if result.sequence_diff:
        lines.append("event sequence (- recording, + replay):")
        lines.extend(f"  {line}" for line in result.sequence_diff[2:])
    return lines


def _waiver_lines(result: CaseResult) -> list[str]:
    """Who excused the failure and why; or, for a failure they do not cover, what is left."""
    lines = [f"waiver {w.shown()}: {w.reason}" for w in result.waivers]
    if result.verdict is Verdict.FAILED:
        left = [c for c in result.failed_checks if not any(w.names(c) for w in result.waivers)]
        lines.append(f"  not covered by a waiver: {', '.join(left)}")
    return lines


def _diff_text(item: FieldDiff) -> str:
    """`path: recorded X, replay Y`; a side that lacks the field says so."""
    recorded = "absent" if item.expected is ABSENT else _compact(item.expected)
    replay = "absent" if item.actual is ABSENT else _compact(item.actual)
    return f"{item.path}: recorded {recorded}, replay {replay}"


def _compact(value: Any, limit: int = 100) -> str:
    text = files.canonical_json(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
