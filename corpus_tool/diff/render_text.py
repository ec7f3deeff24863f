"""Diffs for people: terminal text and Markdown (for a pull-request comment)."""

from __future__ import annotations

from corpus_tool.diff.pair import PairDiff, StepDiff, shown_value
from corpus_tool.diff.suites import SuiteDiff
from corpus_tool.diff.verdict import DiffVerdict
from corpus_tool.model.field_diff import FieldDiff


def headline(verdict: DiffVerdict) -> str:
    """`regression: the output lost R900; worse ending: submitted -> unknown`."""
    why = "; ".join(verdict.reasons)
    return f"{verdict.verdict}: {why}" if why else verdict.verdict


def pair_lines(
    diff: PairDiff, verdict: DiffVerdict, names: tuple[str, str] = ("A", "B")
) -> list[str]:
    """The verdict first, then every difference."""
    lines = [headline(verdict)]
    if diff.first is not None:
        lines.append(f"first divergence: {_where(diff.first, names)}")
    for step in diff.steps:
        lines.append(f"  step {step.number} {step.change}: {_sides(step, names)}")
        lines.extend(f"      {field_line(d, names)}" for d in step.diffs)
    lines.extend(_facts(diff, names))
    lines.extend(f"note: {note.text(names)}" for note in diff.notes)
    if verdict.judge is not None:
        lines.append(f"judge: {verdict.judge}")
    return lines


def _where(step: StepDiff, names: tuple[str, str]) -> str:
    return f"step {step.number} ({_seqs(step, names)}): {step.a or step.b}"


def _seqs(step: StepDiff, names: tuple[str, str]) -> str:
    parts = [f"{n} seq {s}" for n, s in zip(names, (step.a_seq, step.b_seq), strict=True) if s]
    return ", ".join(parts)


def _sides(step: StepDiff, names: tuple[str, str]) -> str:
    if step.change == "dropped":
        return f"only in {names[0]} (seq {step.a_seq}): {step.a}"
    if step.change == "added":
        return f"only in {names[1]} (seq {step.b_seq}): {step.b}"
    wording = " (wording)" if step.wording else ""
    return f"{_seqs(step, names)}: {step.a}{wording}"


def field_line(diff: FieldDiff, names: tuple[str, str]) -> str:
    """`$.arguments.amount: A 19900, B 199`."""
    a, b = shown_value(diff.expected), shown_value(diff.actual)
    return f"{diff.path}: {names[0]} {a}, {names[1]} {b}"


def _facts(diff: PairDiff, names: tuple[str, str]) -> list[str]:
    a, b = names
    out = [
        f"tools: dropped {_list(diff.tools_dropped)}, added {_list(diff.tools_added)}, "
        f"reordered {_list(diff.tools_reordered)}; calls {a} {diff.tool_calls[0]}, "
        f"{b} {diff.tool_calls[1]}",
        f"errors: new {_list(diff.errors_new)}, gone {_list(diff.errors_gone)}",
    ]
    if diff.side_effects:
        moved = ", ".join(f"{k} {x} -> {y}" for k, x, y in diff.side_effects)
        out.append(f"side effects: {moved}")
    if diff.egress_added or diff.egress_gone:
        out.append(f"egress: added {_list(diff.egress_added)}, gone {_list(diff.egress_gone)}")
    worse = " (worse)" if diff.worse_ending else ""
    out.append(f"terminal: {diff.terminal[0]} -> {diff.terminal[1]}{worse}")
    if diff.output_changed:
        out.append("output: changed")
    if diff.entities_lost:
        lost = ", ".join(f"{e.text} ({e.kind})" for e in diff.entities_lost)
        out.append(f"entities in {a}'s output missing from {b}'s: {lost}")
    return out


def _list(items: tuple[str, ...]) -> str:
    return ", ".join(items) if items else "-"


def suite_lines(suite: SuiteDiff) -> list[str]:
    """A table of per-case verdicts, the count per verdict, and the distribution shift."""
    width = max([len(c.case) for c in suite.cases] + [4])
    lines = [f"{'case':<{width}}  {'verdict':<10}  why"]
    for case in suite.cases:
        why = "; ".join(case.verdict.reasons)
        judge = f" [judge: {case.verdict.judge}]" if case.verdict.judge else ""
        lines.append(f"{case.case:<{width}}  {case.verdict.verdict:<10}  {why}{judge}")
    counts = ", ".join(f"{n} {v}" for v, n in suite.counts().items() if n)
    lines += ["", f"{len(suite.cases)} case(s): {counts or 'none'}; verdict {suite.worst}"]
    if suite.not_compared:
        lines.append(f"not run on either side: {', '.join(suite.not_compared)}")
    lines.append("")
    lines.extend(_shift_rows(suite, "{:<28}{:>8}{:>8}"))
    return lines


def _shift_rows(suite: SuiteDiff, row: str) -> list[str]:
    shift = suite.shift
    base, head = shift.per_case()
    lines = [
        row.format("distribution shift", "base", "head"),
        row.format("tool calls per case", f"{base:.2f}", f"{head:.2f}"),
    ]
    lines.extend(row.format(f"ended {s}", a, b) for s, (a, b) in shift.terminal.items())
    lines.extend(row.format(f"cases dropping {t}", "", n) for t, n in shift.dropped.items())
    lines.extend(row.format(f"cases adding {t}", "", n) for t, n in shift.added.items())
    return lines


def pair_markdown(diff: PairDiff, verdict: DiffVerdict) -> list[str]:
    """Markdown: the verdict as a heading, the steps as a table, the facts as a list."""
    lines = [f"### `{verdict.verdict}`", "", *(f"- {r}" for r in verdict.reasons), ""]
    if diff.steps:
        lines += ["| step | change | A | B | fields |", "| ---: | --- | --- | --- | --- |"]
        for s in diff.steps:
            fields = "<br>".join(_cell(field_line(d, ("A", "B"))) for d in s.diffs)
            lines.append(
                f"| {s.number} | {s.change} | {_cell(s.a or '')} | {_cell(s.b or '')} | {fields} |"
            )
        lines.append("")
    lines.extend(f"- {_cell(fact)}" for fact in _facts(diff, ("A", "B")))
    lines.extend(f"- note: {_cell(note.text())}" for note in diff.notes)
    if verdict.judge is not None:
        lines.append(f"- judge: {verdict.judge}")
    return lines


def suite_markdown(suite: SuiteDiff) -> list[str]:
    """Markdown: per-case verdicts and the shift, as two tables."""
    lines = [f"### `{suite.worst}`", "", "| case | verdict | why |", "| --- | --- | --- |"]
    for case in suite.cases:
        why = _cell("; ".join(case.verdict.reasons))
        lines.append(f"| {_cell(case.case)} | {case.verdict.verdict} | {why} |")
    lines += ["", "| distribution shift | base | head |", "| --- | ---: | ---: |"]
    lines.extend(_shift_rows(suite, "| {} | {} | {} |")[1:])
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
