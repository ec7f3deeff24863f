"""`corpus add FILE... | DIR`: many incidents in one process, all checked before any is written.

A directory is a folder of incidents, except an OpenHands conversation directory
(`base_state.json` beside `events/`), which is one incident, also when found below a folder.

One file is `corpus add FILE` (author.plan.add_incident); this module expands directories,
plans every file with the same pipeline (author.plan.plan), and either writes nothing when one
file is refused (the default) or, with `--keep-going`, gives each file its own outcome.
A rich progress bar shows on a terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from corpus_tool import ingest, redact
from corpus_tool.author.plan import add_incident, corpus_redactor, plan
from corpus_tool.author.render import report, summary
from corpus_tool.author.stages import AddOptions, Planned
from corpus_tool.author.write import write
from corpus_tool.errors import CorpusError, InputError, UsageError
from corpus_tool.io import escapes, files
from corpus_tool.store.corpus import Corpus
from corpus_tool.store.faults import StepCounter


@dataclass(frozen=True)
class IncidentOutcome:
    """One incident file's outcome: its planned cases, or why it was refused."""

    path: Path
    planned: tuple[Planned, ...] = ()
    error: str | None = None


def add_many(
    corpus: Corpus,
    paths: Sequence[Path],
    options: AddOptions,
    out: TextIO,
    environ: Mapping[str, str] | None = None,
    err: TextIO | None = None,
) -> int:
    """Ingest every incident named (directories: every file below, sorted); refusals go to
    `err` (default stderr), one line each, and exit status 2."""
    environ = os.environ if environ is None else environ
    incidents = expand(paths)
    if len(incidents) == 1 and not any(_batch_dir(p) for p in paths):
        planned = add_incident(corpus, replace(options, incident=incidents[0]), environ, err)
        report(corpus, planned, options.output, out)
        return 0
    if options.case_id is not None or options.start is not None or options.end is not None:
        raise UsageError("--id, --start and --end name one incident; add the files one by one")
    if options.tools_log is not None:
        raise UsageError("--tools-log completes one incident; add the files one by one")
    redactor = corpus_redactor(corpus, environ)
    with _progress(out, len(incidents)) as advance:
        outcomes = [
            _outcome(corpus, replace(options, incident=p), redactor, advance) for p in incidents
        ]
    outcomes = _refuse_twins(outcomes)
    refused = [v for v in outcomes if v.error is not None]
    written = [v for v in outcomes if v.error is None] if options.keep_going or not refused else []
    cases = [case for outcome in written for case in outcome.planned]
    write(corpus, cases, options.force, StepCounter.from_environ(environ), err)
    _report(corpus, outcomes, written, options, (out, err or sys.stderr))
    return 2 if refused else 0


def expand(paths: Sequence[Path]) -> list[Path]:
    """The files to read: files as given, each directory's files (hidden ones skipped) sorted."""
    out: list[Path] = []
    for path in paths:
        if _batch_dir(path):
            found = _incidents_below(path)
            if not found:
                raise InputError("the directory holds no incident files", path)
            out.extend(found)
        else:
            out.append(path)
    return list(dict.fromkeys(out))


def _batch_dir(path: Path) -> bool:
    return path.is_dir() and not ingest.is_one_incident(path)


def _incidents_below(top: Path) -> list[Path]:
    """Files below `top` (hidden ones skipped), and conversation directories as one each
    (their files are not incidents of their own), sorted; one walk of the tree."""
    found: list[Path] = []
    for here, dirs, names in os.walk(top):
        where = Path(here)
        if where != top and ingest.is_one_incident(where):
            found.append(where)
            dirs.clear()
            continue
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found.extend(where / n for n in names if not n.startswith(".") and (where / n).is_file())
    return sorted(found)


def _outcome(
    corpus: Corpus, options: AddOptions, redactor: redact.Redactor, advance: Callable[[], None]
) -> IncidentOutcome:
    try:
        return IncidentOutcome(options.incident, plan(corpus, options, redactor))
    except CorpusError as err:
        return IncidentOutcome(options.incident, error=str(err))
    finally:
        advance()


def _refuse_twins(outcomes: list[IncidentOutcome]) -> list[IncidentOutcome]:
    """Two files must not become one case: the later file is refused, naming the earlier."""
    seen: dict[str, Path] = {}
    out = []
    for outcome in outcomes:
        clash = next((c.case_id for c in outcome.planned if c.case_id in seen), None)
        if clash is not None:
            message = f"{outcome.path}: would become case {clash!r} like {seen[clash]}; use --id"
            outcome = IncidentOutcome(outcome.path, error=message)
        else:
            seen.update({c.case_id: outcome.path for c in outcome.planned})
        out.append(outcome)
    return out


def _report(
    corpus: Corpus,
    outcomes: list[IncidentOutcome],
    written: list[IncidentOutcome],
    options: AddOptions,
    streams: tuple[TextIO, TextIO],
) -> None:
    out, err = streams
    done = {v.path for v in written}
    if options.output == "json":
        out.write(files.json_text(_json(corpus, outcomes, done)))
        return
    for outcome in written:
        report(corpus, list(outcome.planned), "text", out)
    refused = [v for v in outcomes if v.error is not None]
    for outcome in refused:
        err.write(f"corpus add: refused: {escapes.line(outcome.error)}\n")
    cases = sum(len(v.planned) for v in written)
    nothing = "; nothing written (--keep-going adds the others)" if refused else ""
    summary = f"{len(outcomes)} incident(s): {cases} case(s) added, {len(refused)} refused"
    (err if refused else out).write(summary + (nothing if not options.keep_going else "") + "\n")


def _json(corpus: Corpus, outcomes: list[IncidentOutcome], done: set[Path]) -> dict[str, Any]:
    return {
        "incidents": [
            {
                "path": str(v.path),
                "written": v.path in done,
                "error": v.error,
                "cases": [summary(corpus, c) for c in v.planned],
            }
            for v in outcomes
        ],
        "added": sum(len(v.planned) for v in outcomes if v.path in done),
        "refused": sum(1 for v in outcomes if v.error is not None),
    }


@contextmanager
def _progress(out: TextIO, total: int) -> Iterator[Callable[[], None]]:
    """A rich progress bar on a terminal; nothing extra in pipes and CI logs."""
    if not (hasattr(out, "isatty") and out.isatty()) or total < 2:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = (TextColumn("checking incidents"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=Console(file=escapes.raw(out)), transient=True) as progress:
        task = progress.add_task("incidents", total=total)
        yield lambda: progress.advance(task)
