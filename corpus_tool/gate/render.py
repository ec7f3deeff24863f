"""What the gate prints and writes: the terminal table, the JSON document, JUnit XML."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from xml.etree import ElementTree

from corpus_tool.gate.live import LiveDecision
from corpus_tool.gate.policy import BLOCKING, Cover, Decision, Kind, Rate, Row
from corpus_tool.gate.shift import shift_doc, shift_lines
from corpus_tool.io import escapes
from corpus_tool.io.escapes import lines as shown_lines
from corpus_tool.model.divergence import Divergence
from corpus_tool.model.json import JsonObject
from corpus_tool.model.results import Verdict
from corpus_tool.model.values import ABSENT
from corpus_tool.model.waiver import Waiver
from corpus_tool.version import __version__

GATE_VERSION = 1
TITLES = {
    Kind.REGRESSION: "regression",
    Kind.NEW_FAILURE: "new, failing",
    Kind.STILL_FAILING: "still failing",
    Kind.NEWLY_PASSING: "newly passing",
    Kind.PASSING: "passing",
    Kind.NOT_COUNTED: "not counted",
    Kind.IMPROVED: "improved",
    Kind.UNCHANGED: "unchanged",
    Kind.INSUFFICIENT_DATA: "insufficient data",
    Kind.UNRELIABLE_BASELINE: "unreliable baseline",
    Kind.NOT_COMPARABLE: "not comparable",
}
NOT_COVERED = "not covered by a waiver"


@dataclass(frozen=True)
class SideNames:
    """How the two sides were named: `main (merge base 1a2b3c4d5e6f)`, `BASE.json`, ..."""

    base: str
    head: str


def headline(decision: Decision) -> str:
    """The verdict in one line: `gate: BLOCKED (1 regression, 1 new failing case)`."""
    blocking = [r for r in decision.rows if r.blocks]
    if not blocking and decision.suite_blocks:
        return "gate: BLOCKED (suite regression: gate.block_on_suite is true)"
    if not blocking:
        waived = sum(1 for r in decision.rows if r.head is Verdict.WAIVED)
        silenced = len(decision.silenced())
        said = [f"{waived} waived"] if waived else []
        said += [f"{_count(silenced, 'case')} silenced by this change"] if silenced else []
        extra = f" ({', '.join(said)})" if said else ""
        return f"gate: PASSED: no regression{extra}"
    regressions = sum(1 for r in blocking if r.kind is Kind.REGRESSION)
    new = len(blocking) - regressions
    said = [_count(regressions, "regression")] if regressions else []
    said += [_count(new, "new failing case")] if new else []
    said += ["suite regression"] if decision.suite_blocks else []
    return f"gate: BLOCKED ({', '.join(said)})"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def divergence_lines(divergence: Divergence | None) -> list[str]:
    """A divergence in a few lines: what happened, then the first field differences."""
    if not divergence:
        return []
    said = [f"{divergence.kind} at step {divergence.step}: {divergence.message}"]
    for item in divergence.diff[:3]:
        said.append(f"{item.path}: recorded {_value(item.expected)}, replay {_value(item.actual)}")
    return said


def _value(value: object) -> str:
    if value is ABSENT:
        return "absent"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def case_note(row: Row, decision: Decision) -> str:
    """The NOTE column: why it failed, who waived it or what no waiver covers, why the base
    has no verdict."""
    parts = [row.live.line()] if row.live is not None else []
    parts += [row.why] if row.why and row.head is not Verdict.PASSED else []
    parts.extend(coverage(row, decision))
    if row.note:
        parts.append(row.note)
    if row.silenced:
        parts.append(silenced_line(row))
    return "; ".join(parts)


def silenced_line(row: Row) -> str:
    """`silenced by this change: tier archive (was fast), base passed`."""
    flips = ", ".join(f.shown() for f in row.silenced)
    return f"silenced by this change: {flips}, base {row.base or 'no verdict'}"


def coverage(row: Row, decision: Decision, code: Callable[[str], str] = str) -> list[str]:
    """Which waiver names each failed check: `waived by W-1` when they cover all of them;
    else what no waiver covers first, then each check a waiver names (never "waived by": the
    case still fails). `code` quotes a check or waiver id (the Markdown's code spans)."""
    if not row.waived_by:
        return []
    if row.head is Verdict.WAIVED:
        if len(row.waived_by) == 1:
            return ["waived by " + waiver_tag(row.waived_by[0], decision, code)]
        return ["waived by " + ", ".join(_each(w, row, decision, code) for w in row.waived_by)]
    said = [f"{NOT_COVERED}: " + ", ".join(code(c) for c in row.uncovered)]
    said += [_covered(c, decision, code) for c in row.covers if c.waivers]
    return said


def _each(waiver: Waiver, row: Row, decision: Decision, code: Callable[[str], str]) -> str:
    """`W-2 (added by this change) for terminal.status`: one of several waivers of a case."""
    checks = ", ".join(code(c.check) for c in row.covers if waiver in c.waivers)
    return f"{waiver_tag(waiver, decision, code)} for {checks}"


def _covered(cover: Cover, decision: Decision, code: Callable[[str], str]) -> str:
    """`terminal.status covered by W-2 (added by this change)`."""
    tags = ", ".join(waiver_tag(w, decision, code) for w in cover.waivers)
    return f"{code(cover.check)} covered by {tags}"


def waiver_tag(waiver: Waiver, decision: Decision, code: Callable[[str], str] = str) -> str:
    """`W-2 (added by this change)`: a waiver's id, and what this change did to it."""
    how = decision.change_of(waiver)
    return code(waiver.id) + (f" ({how} by this change)" if how else "")


def text(decision: Decision, sides: SideNames) -> str:
    """The terminal report: a table of the cases, the waivers, pass rates, the verdict last."""
    lines = [f"base: {sides.base}", f"head: {sides.head}", ""]
    header = ("CASE", "TIER", "BASE", "HEAD", "GATE")
    table = [header] + [
        (r.case, r.tier, r.base or "-", r.head, TITLES[r.kind] + (" *" if r.blocks else ""))
        for r in decision.rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row, source in zip(table, [None, *decision.rows], strict=True):
        cells = "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        note = case_note(source, decision) if source is not None else "NOTE"
        lines.append(f"{cells}  {note}".rstrip())
    if not decision.rows:
        lines.append("(no case selected: nothing to compare)")
    lines.extend(_details(decision))
    lines.extend(_listed(decision))
    lines.append("")
    lines.extend(rate_lines(decision.rates))
    lines.extend(suite_lines(decision.live))
    lines.append("")
    marked = any(r.blocks for r in decision.rows)
    lines.append(headline(decision) + ("; * marks what blocks" if marked else ""))
    return shown_lines(lines)  # a line each: an id's newline cannot start one


def _details(decision: Decision) -> list[str]:
    """Why each regression and new failure fails: the divergence, and the checks it failed."""
    lines: list[str] = []
    for row in decision.rows:
        if row.kind not in BLOCKING:
            continue
        lines.extend(["", f"{row.case}: {TITLES[row.kind]}{'' if row.blocks else ' (waived)'}"])
        lines.extend(f"  {text}" for text in divergence_lines(row.divergence))
        lines.extend(_checks(row, decision))
        lines.extend(f"  waiver {w.shown()}: {w.reason}" for w in row.waived_by)
    return lines


def _checks(row: Row, decision: Decision) -> list[str]:
    """The failed checks: on one line when no waiver names any, else one line each with the
    waivers that name it, or that none does."""
    if not row.waived_by:
        failed = [c for c in row.failed_checks if c != "replay.divergence"]
        return [f"  failed: {', '.join(failed)}"] if failed else []
    lines = ["  failed checks:"]
    for cover in row.covers:
        tags = ", ".join(waiver_tag(w, decision) for w in cover.waivers)
        lines.append(f"    {cover.check}: " + (f"covered by {tags}" if tags else NOT_COVERED))
    return lines


def _listed(decision: Decision) -> list[str]:
    lines: list[str] = []
    if decision.removed:
        lines.append(f"removed by this change: {', '.join(decision.removed)}")
    if decision.unmatched:
        lines.append(
            f"in the base results only (not run on head, or removed): "
            f"{', '.join(decision.unmatched)}"
        )
    for change in decision.changed_waivers:
        w = change.waiver
        lines.append(f"waiver {w.shown()} {change.how} by this change: case {w.case}")
    for row in decision.silenced():
        lines.append(f"case {row.case} {silenced_line(row)}: not counted, review it")
    for w in decision.expired:
        lines.append(f"waiver {w.shown()} has expired: it waives nothing")
    for b in decision.broken:
        lines.append(f"waiver {b.id} waives nothing: {b.problem}")
    for w in decision.unused:
        lines.append(f"waiver {w.id} (case {w.case}) is unused: every check it names passed")
    return ["", *lines] if lines else []


def rate_lines(rates: Mapping[str, Mapping[str, Rate]]) -> list[str]:
    """`pass rate fast: base 2/2 (100.0%), head 1/2 (50.0%)` per tier."""
    tiers = sorted({t for side in rates.values() for t in side})
    lines = []
    for tier in tiers:
        shown = [f"{side} {_rate(rates[side].get(tier))}" for side in ("base", "head")]
        lines.append(f"pass rate {tier}: {', '.join(shown)}")
    return lines or ["pass rate: no counted case on either side"]


def suite_lines(live: LiveDecision | None) -> list[str]:
    """The live run as a whole: both pass rates, the sign test, suite regression or not."""
    if live is None or live.suite is None:
        return []
    suite = live.suite
    said = "suite regression" if suite.regression else "no suite regression"
    if suite.regression:
        said += " (blocks: gate.block_on_suite)" if suite.blocks else " (reported, not blocking)"
    return [
        f"live pass rate: base {suite.base.shown()}, head {suite.head.shown()}",
        f"sign test across cases: {suite.sign.drops} dropped, {suite.sign.rises} rose, "
        f"p={suite.sign.p_value:.4g}: {said}",
        *(shift_lines(live.shift) if live.shift is not None else []),
    ]


def _rate(rate: Rate | None) -> str:
    if rate is None or rate.percent is None:
        return "-"
    return f"{rate.passed}/{rate.counted} ({rate.percent}%)"


def json_doc(decision: Decision, sides: SideNames) -> JsonObject:
    """The gate's machine-readable report; stable key order, cases sorted by id."""
    return {
        "schema_version": GATE_VERSION,
        "tool": {"name": "corpus-tool", "version": __version__},
        "verdict": "blocked" if decision.blocked else "passed",
        "base": sides.base,
        "head": sides.head,
        "cases": [_row_dict(r, decision) for r in decision.rows],
        "removed": list(decision.removed),
        "unmatched": list(decision.unmatched),
        "silenced": [r.case for r in decision.silenced()],
        "waivers": {
            "used": [_used(w, decision) for w in decision.waivers_used()],
            "changed": [{**c.waiver.as_dict(), "how": c.how} for c in decision.changed_waivers],
            "expired": [w.as_dict() for w in decision.expired],
            "invalid": [b.as_dict() for b in decision.broken],
            "unused": [w.as_dict() for w in decision.unused],
        },
        "pass_rate": _pass_rate(decision),
        **_live_doc(decision.live),
    }


def _live_doc(live: LiveDecision | None) -> JsonObject:
    """The live gate's settings and the suite test (nothing when no case ran live)."""
    if live is None:
        return {}
    settings = live.settings
    return {
        "live": {
            "alpha": settings.alpha,
            "min_detectable": settings.min_detectable,
            "min_base_rate": settings.min_base_rate,
            "correction": settings.correction,
            "block_on_suite": settings.block_on_suite,
            "suite": live.suite.as_dict() if live.suite is not None else None,
            "shift": shift_doc(live.shift) if live.shift is not None else None,
        }
    }


def _pass_rate(decision: Decision) -> JsonObject:
    return {
        side: {t: {"passed": r.passed, "counted": r.counted} for t, r in tiers.items()}
        for side, tiers in decision.rates.items()
    }


def _used(waiver: Waiver, decision: Decision) -> JsonObject:
    return {**waiver.as_dict(), "changed_by_this_change": decision.change_of(waiver)}


def _row_dict(row: Row, decision: Decision) -> JsonObject:
    return {
        "case": row.case,
        "tier": row.tier,
        "base": row.base.value if row.base is not None else None,
        "head": row.head.value,
        "kind": row.kind.value,
        "verdict": row.kind.value,
        "blocks": row.blocks,
        "why": row.why,
        "failed_checks": list(row.failed_checks),
        "divergence": row.divergence.as_dict() if row.divergence else None,
        "waived_by": [w.id for w in row.waived_by] if row.head is Verdict.WAIVED else [],
        "covered_by": {c.check: [w.id for w in c.waivers] for c in row.covers},
        "not_covered": list(row.uncovered),
        "note": row.note,
        "silenced_by_this_change": [f.as_dict() for f in row.silenced],
        **({"live": row.live.as_dict()} if row.live is not None else {}),
    }


def junit(decision: Decision) -> str:
    """JUnit XML: blocking cases fail, waived and not blocking ones are skipped with why."""
    suite = ElementTree.Element(
        "testsuite",
        name="corpus-gate",
        tests=str(len(decision.rows)),
        failures=str(sum(1 for r in decision.rows if r.blocks)),
        errors="0",
        skipped=str(sum(1 for r in decision.rows if _skipped(r))),
    )
    for row in decision.rows:
        case = ElementTree.SubElement(
            suite, "testcase", classname=f"corpus.gate.{row.tier}", name=row.case
        )
        message = f"{TITLES[row.kind]}: {case_note(row, decision)}".rstrip(": ")
        if row.blocks:
            ElementTree.SubElement(case, "failure", message=message).text = message
        elif _skipped(row):
            ElementTree.SubElement(case, "skipped", message=message)
    ElementTree.indent(suite)
    return escapes.xml(ElementTree.tostring(suite, encoding="unicode", xml_declaration=True)) + "\n"


def _skipped(row: Row) -> bool:
    return not row.blocks and row.head is not Verdict.PASSED
