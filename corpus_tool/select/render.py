"""The `affected` renderers: lines, json, pytest, github-matrix, text (a registry by name).

Machine formats keep stdout to their format alone; what a person should still see (removed
cases, and the reasons when --explain asks) goes to stderr.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from corpus_tool.io import escapes, files
from corpus_tool.select.selection import Removed, Selection
from corpus_tool.select.shard import Shard, ShardSpec

EXPLAIN_LIMIT = 5
"""Reasons shown per case in text and on stderr."""
SHARED_LIMIT = 5
"""Every-case reasons repeated under each case in json (all of them are in `reasons_for_all`):
a merge touching 1,000 unmapped files must not print 1,000 reasons for each of 10,000 cases."""


@dataclass(frozen=True)
class Report:
    """Everything a renderer prints."""

    selection: Selection
    selected: tuple[str, ...]  # after --tier, and after --shard K/N when K is given
    shards: tuple[Shard, ...]  # every shard of --shard (empty without it)
    shard: ShardSpec | None
    corpus: str  # the corpus directory, as pytest is to be given it
    base: str
    merge_base: str
    head: str
    explain: bool = False


class SelectionRenderer(Protocol):
    def __call__(self, report: Report, out: TextIO, err: TextIO) -> None: ...


def lines(report: Report, out: TextIO, err: TextIO) -> None:
    """One case id per line and nothing else."""
    for case_id in report.selected:
        out.write(case_id + "\n")
    _notes(report, err)


def pytest_args(report: Report, out: TextIO, err: TextIO) -> None:
    """`--corpus DIR --corpus-case ID ...` on one line; nothing at all when nothing is selected."""
    if report.selected:
        words = ["--corpus", report.corpus]
        for case_id in report.selected:
            words += ["--corpus-case", case_id]
        out.write(shlex.join(words) + "\n")
    _notes(report, err)


def github_matrix(report: Report, out: TextIO, err: TextIO) -> None:
    """`{"include": [{"shard", "of", "cases", "count", "events"}]}` on one line, no empty shards."""
    shards = _chosen_shards(report)
    include = [
        {
            "shard": s.number,
            "of": s.count,
            "cases": " ".join(s.cases),
            "count": len(s.cases),
            "events": s.weight,
        }
        for s in shards
        if s.cases
    ]
    out.write(json.dumps({"include": include}, separators=(",", ":")) + "\n")
    _notes(report, err)


def as_json(report: Report, out: TextIO, err: TextIO) -> None:
    """Ids, reasons, removed cases and shards, for machines (stable key order)."""
    selection = report.selection
    data: dict[str, Any] = {
        "corpus": report.corpus,
        "base": report.base,
        "merge_base": report.merge_base,
        "head": report.head,
        "changed_files": len(selection.changes),
        "total_cases": len(selection.cases.ids),
        "selected": list(report.selected),
        "reasons": {
            c: [r.as_dict() for r in selection.reasons(c, SHARED_LIMIT)] for c in report.selected
        },
        "reasons_for_all": [r.as_dict() for r in selection.everyone],
        "removed": [r.as_dict() for r in selection.removed],
        "selecting_nothing": [r.as_dict() for r in selection.quiet],
        "shard": str(report.shard) if report.shard else None,
        "shards": [
            {"shard": s.number, "of": s.count, "cases": list(s.cases), "events": s.weight}
            for s in report.shards
        ],
    }
    out.write(files.json_text(data))


def text(report: Report, out: TextIO, err: TextIO) -> None:
    """A summary for people, the reasons under each case with --explain."""
    selection = report.selection
    changed = len(selection.changes)
    out.write(
        f"{len(report.selected)} of {len(selection.cases.ids)} cases affected by "
        f"{changed} changed file{'' if changed == 1 else 's'} "
        f"({report.merge_base[:12]}...{report.head[:12]}){_shard_note(report)}\n"
    )
    for case_id in report.selected:
        out.write(f"  {case_id}\n")
        if report.explain:
            _reasons(selection, case_id, out, "      ")
    for gone in selection.removed:
        out.write(f"  removed: {_removal(gone)}\n")
    if report.explain and not report.selected:
        _why_nothing(report, out, "  ")


def _removal(gone: Removed) -> str:
    first = gone.reasons[0]
    what = (
        f"renamed to {first.path}" if first.status == "renamed" else f"{first.path} {first.status}"
    )
    called = f"; its trace called {', '.join(gone.tools)}" if gone.tools else ""
    return escapes.line(f"{gone.id} ({what}{called})")  # git paths may hold a newline


def _shard_note(report: Report) -> str:
    if report.shard is None or report.shard.index is None:
        return ""
    mine = report.shards[report.shard.index - 1]
    return f", shard {report.shard}: {len(mine.cases)} cases, {mine.weight} events"


def _reasons(selection: Selection, case_id: str, out: TextIO, indent: str) -> None:
    for reason in selection.reasons(case_id, EXPLAIN_LIMIT)[:EXPLAIN_LIMIT]:
        out.write(f"{indent}{escapes.line(reason)}\n")
    more = selection.reason_count(case_id) - EXPLAIN_LIMIT
    if more > 0:
        out.write(f"{indent}... and {more} more (see --format json)\n")


def _notes(report: Report, err: TextIO) -> None:
    for gone in report.selection.removed:
        err.write(f"corpus affected: removed case {_removal(gone)}\n")
    if report.explain:
        for case_id in report.selected:
            err.write(f"{case_id}:\n")
            _reasons(report.selection, case_id, err, "    ")
        if not report.selected:
            _why_nothing(report, err, "")


def _why_nothing(report: Report, out: TextIO, indent: str) -> None:
    """An empty selection explained: each changed file and the rule that selected nothing."""
    selection = report.selection
    if report.shard is not None and selection.selected():
        out.write(f"{indent}no case in shard {report.shard}; the other shards hold the rest\n")
        return
    if selection.selected():  # every case was filtered out by --tier
        out.write(f"{indent}no selected case is of the tiers asked for (--tier)\n")
        return
    if not selection.changes:
        out.write(f"{indent}no case selected: no file changed\n")
        return
    out.write(f"{indent}no case selected; why, for each changed file:\n")
    for reason in selection.quiet:
        out.write(f"{indent}  {escapes.line(reason)}\n")


def _chosen_shards(report: Report) -> list[Shard]:
    if report.shard is not None and report.shard.index is not None:
        return [report.shards[report.shard.index - 1]]
    return list(report.shards)


RENDERERS: dict[str, SelectionRenderer] = {
    "lines": lines,
    "json": as_json,
    "pytest": pytest_args,
    "github-matrix": github_matrix,
    "text": text,
}
