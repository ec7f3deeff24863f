"""Which runs of an incident file become cases: `--select` one, `--all`, or the only one;
`--tools-log` completes the one chosen."""

from __future__ import annotations

from pathlib import Path

from corpus_tool import ingest
from corpus_tool.errors import InputError, UsageError
from corpus_tool.ingest.imported import Imported


def chosen(runs: list[Imported], select: str | None, all_runs: bool, path: Path) -> list[Imported]:
    """The runs the command line asked for, or an InputError naming the file's runs."""
    if select is not None:
        hits = [r for r in runs if select in (r.label, r.task_id)]
        if len(hits) != 1:
            raise InputError(_select_message(runs, hits, select), path)
        return hits
    if len(runs) > 1 and not all_runs:
        raise InputError(
            f"the file holds {len(runs)} runs ({_labels(runs)}); "
            "pass --select TASK_ID for one, or --all for each as its own case",
            path,
        )
    if not runs:
        raise InputError("the file holds no runs", path)
    return runs


def paired(runs: list[Imported], tools_log: Path, slicing: bool) -> Imported:
    """The one run `--tools-log` completes (its seq numbers are renumbered: no slicing)."""
    if len(runs) != 1:
        raise UsageError("--tools-log completes one run; pick it with --select")
    if slicing:
        raise UsageError("--tools-log renumbers the events; add the paired case, then slice it")
    return ingest.with_tools_log(runs[0], tools_log)


def _select_message(runs: list[Imported], hits: list[Imported], wanted: str) -> str:
    if hits:
        return f"--select {wanted} matches {len(hits)} runs ({_labels(hits)}); select by label"
    return f"no run with task id or label {wanted!r}; the file holds: {_labels(runs)}"


def _labels(runs: list[Imported], most: int = 8) -> str:
    names = [r.label or r.trace_id or "?" for r in runs[:most]]
    return ", ".join(names) + (f", ... ({len(runs)} in all)" if len(runs) > most else "")
