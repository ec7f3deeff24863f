"""The gate as a pull-request comment: the verdict first, then what a reviewer must look at."""

from __future__ import annotations

import re

from corpus_tool.gate.live import LiveVerdict, needed_text
from corpus_tool.gate.policy import BLOCKING, Decision, Kind, Row
from corpus_tool.gate.render import (
    TITLES,
    SideNames,
    case_note,
    coverage,
    divergence_lines,
    headline,
    rate_lines,
    silenced_line,
    suite_lines,
)
from corpus_tool.io import escapes
from corpus_tool.model.waiver import Waiver


def markdown(decision: Decision, sides: SideNames) -> str:
    """Verdict, regressions with their divergence, waivers used and added, cases the change
    silenced, newly passing, still failing, removed cases, pass rates."""
    icon = ":x:" if decision.blocked else ":white_check_mark:"
    out = [
        f"## {icon} {_md(headline(decision))}",
        "",
        f"base {_code(sides.base)}, head {_code(sides.head)}",
    ]
    blocking = [r for r in decision.rows if r.blocks]
    out += _section("Blocking", [_failure(r, decision) for r in blocking])
    waived = [r for r in decision.rows if r.kind in BLOCKING and not r.blocks]
    out += _section("Regressions excused by a waiver", [_failure(r, decision) for r in waived])
    out += _section("Waivers used", [_waiver(w, decision) for w in decision.waivers_used()])
    out += _section(
        "Waivers added or extended by this change (review these)",
        [f"- {_code(c.waiver.id)} {c.how}: {_about(c.waiver)}" for c in decision.changed_waivers],
    )
    out += _section(
        "Cases silenced by this change: not counted any more (review these)",
        [_silenced(r) for r in decision.silenced()],
    )
    out += _section(
        "Newly passing", [_passing(r, decision) for r in decision.of_kind(Kind.NEWLY_PASSING)]
    )
    out += _section(
        "Still failing (not caused by this change)",
        [
            f"- {_code(r.case)}: {_md(case_note(r, decision))}"
            for r in decision.of_kind(Kind.STILL_FAILING)
        ],
    )
    out += _section("Removed by this change", [f"- {_code(c)}" for c in decision.removed])
    out += _live_table(decision)
    out += _section("Waivers that waive nothing", _idle(decision))
    out += [
        "",
        "### Pass rate per tier",
        "",
        *[f"- {_md(line)}" for line in rate_lines(decision.rates)],
    ]
    return escapes.text("\n".join(out) + "\n")


def _live_table(decision: Decision) -> list[str]:
    """Every live case: base and head passes of K with 95% intervals, p, the verdict."""
    rows = [r for r in decision.rows if r.live is not None]
    if not rows:
        return []
    out = [
        "",
        "### Live model: each case over K attempts per side",
        "",
        "| case | base | head | p | verdict |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        live = row.live
        assert live is not None
        verdict = TITLES[row.kind] + (" (blocks)" if row.blocks else "")
        if live.verdict is LiveVerdict.INSUFFICIENT_DATA:
            verdict += f": {needed_text(live)}"
        if live.why:
            verdict += f": {live.why}"
        p = "-" if live.p_value is None else f"{live.p_value:.4g}"
        out.append(
            f"| {_code(row.case)} | {live.base.shown()} | {live.head.shown()} | {p} "
            f"| {_md(verdict)} |"
        )
    suite = [
        f"  - {_md(line.strip())}" if line.startswith("  ") else f"- {_md(line)}"
        for line in suite_lines(decision.live)
    ]
    return out + (["", *suite] if suite else [])


def _section(title: str, items: list[str]) -> list[str]:
    return ["", f"### {title}", "", *items] if items else []


def _failure(row: Row, decision: Decision) -> str:
    lines = [f"- {_code(row.case)} ({row.tier}): {_md(row.why or row.head)}"]
    if row.live is not None:
        lines.append(f"  - live: {_md(row.live.line())}")
    if row.note:
        lines.append(f"  - {_md(row.note)}")
    lines.extend(f"  - {_md(text)}" for text in divergence_lines(row.divergence))
    said = coverage(row, decision, _code)
    if row.blocks and said:  # what no waiver covers is why it blocks: said first, in bold
        said[0] = f"**{said[0]}**"
    lines.extend(f"  - {text}" for text in said)
    return "\n".join(lines)


def _silenced(row: Row) -> str:
    why = f": {_md(row.why)}" if row.why else ""
    return f"- {_code(row.case)} — **{_md(silenced_line(row))}**{why}"


def _waiver(waiver: Waiver, decision: Decision) -> str:
    how = decision.change_of(waiver)
    flag = f" — **{how} by this change**" if how else ""
    return f"- {_code(waiver.id)}: {_about(waiver)}{flag}"


def _about(waiver: Waiver) -> str:
    checks = ", ".join(_code(c) for c in waiver.checks)
    ticket = f", ticket {_md(waiver.ticket)}" if waiver.ticket else ""
    return (
        f"case {_code(waiver.case)}, checks {checks}, owner {_md(waiver.owner)}, "
        f"expires {waiver.expires.isoformat()}{ticket}: {_md(waiver.reason)}"
    )


def _passing(row: Row, decision: Decision) -> str:
    stale = [w.id for w in decision.unused if w.case == row.case]
    extra = f" (its waiver {', '.join(_code(i) for i in stale)} is now unused)" if stale else ""
    return f"- {_code(row.case)} ({row.tier}){extra}"


def _idle(decision: Decision) -> list[str]:
    lines = [f"- {_code(w.id)} expired on {w.expires.isoformat()}" for w in decision.expired]
    lines += [f"- {_code(b.id)} is not valid: {_md(b.problem)}" for b in decision.broken]
    passing = {r.case for r in decision.of_kind(Kind.NEWLY_PASSING)}
    lines += [
        f"- {_code(w.id)} is unused: every check it names passes on {_code(w.case)}"
        for w in decision.unused
        if w.case not in passing
    ]
    return lines


def _md(text: str) -> str:
    """Text safe inside a markdown list item: no table pipes, no stray HTML, one line."""
    md = text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")
    return escapes.line(md)


def _code(value: object) -> str:
    """Data as a code span on one line; a backtick in it cannot end the span early."""
    shown = escapes.line(value)
    fence = "`" * (max((len(run) for run in re.findall("`+", shown)), default=0) + 1)
    pad = " " if "`" in shown else ""
    return f"{fence}{pad}{shown}{pad}{fence}"
