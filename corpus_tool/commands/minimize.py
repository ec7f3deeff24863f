"""`corpus minimize CASE`: shrink a case to the fewest events that still reproduce its trigger."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from corpus_tool.errors import InputError
from corpus_tool.grade import grade_checks
from corpus_tool.io import escapes, files, schema
from corpus_tool.minimize.case import Asked, shrink_case
from corpus_tool.minimize.pooled import workers
from corpus_tool.minimize.render import summary, text_lines
from corpus_tool.minimize.stale import stale
from corpus_tool.model.trace import Trace
from corpus_tool.replay.cases import load_case
from corpus_tool.replay.runner import RunOptions, requested_cases
from corpus_tool.store import recovery, staging
from corpus_tool.store.corpus import Corpus
from corpus_tool.store.faults import StepCounter


@dataclass(frozen=True)
class MinimizeOptions:
    """What the command line asked of `corpus minimize`."""

    case: str
    asked: Asked = field(default_factory=Asked)
    dry_run: bool = False
    output: str = "text"
    timeout_s: float | None = None
    """--timeout: the limit of one replay (None: replay.timeout_s, else 60 s)."""


def minimize(
    corpus: Corpus,
    options: MinimizeOptions,
    out: TextIO,
    environ: Mapping[str, str] | None = None,
    err: TextIO | None = None,
) -> int:
    """Minimize one case and write its trace.yaml atomically (unless --dry-run); 0 when done.

    The agent runs only in a replay worker, as in `check`: an agent that cannot be imported is
    an InputError (exit 2), one that cannot replay the whole case AgentFailed (exit 1).
    """
    steps = StepCounter.from_environ(os.environ if environ is None else environ)
    if not options.dry_run:  # it writes: interrupted writes are finished or undone first
        for note in recovery.recover(corpus, steps):
            if err is not None:
                err.write(f"corpus minimize: {note}\n")
    (case_id,) = requested_cases(corpus, RunOptions((options.case,)))
    path = corpus.case_dir(case_id) / "trace.yaml"
    fingerprint = _sha(path, corpus)
    loaded = load_case(corpus, case_id)
    with workers(corpus, options.timeout_s) as pool, _progress(out, options) as tick:
        result, mode = shrink_case(
            corpus,
            loaded.trace,
            loaded.expected,
            pool,
            options.asked,
            grader=grade_checks,
            progress=tick,
        )
    written = result.changed and not options.dry_run
    if written:  # the one write of a case (staging.py): locked, one rename, recoverable
        text = trace_text(path, result.trace)
        with staging.locked(corpus.case_dir(case_id), steps):
            if _sha(path, corpus) != fingerprint:
                raise InputError("changed while it was being minimized; run minimize again", path)
            staging.write_case(corpus.case_dir(case_id), text, None, True, steps)
    notes = stale(loaded.expected, result.before, result.trace)
    report = summary(result, mode, notes) | {"case": case_id, "written": written}
    if options.output == "json":
        out.write(files.json_text({**report, "dry_run": options.dry_run}))
    else:
        out.write(escapes.lines(text_lines(report, path, options.dry_run)))
    return 0


def trace_text(path: Path, trace: Trace) -> str:
    """The trace.yaml text of a minimized trace, after checking it against the schema."""
    doc = trace.to_doc()
    problems = schema.errors("trace", doc)
    if problems:  # a bug of ours, never a half-good file on disk
        raise InputError(f"minimized trace does not fit the schema: {problems[0].message}", path)
    return files.dump_yaml(doc)


def _sha(path: Path, corpus: Corpus) -> str:
    return hashlib.sha256(files.read_bytes(path, within=corpus.root)).hexdigest()


@contextmanager
def _progress(out: TextIO, options: MinimizeOptions) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on a terminal (text output only); silent otherwise."""
    if options.output != "text" or not (hasattr(out, "isatty") and out.isatty()):
        yield lambda replays, events: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = (TextColumn("minimizing {task.description}"), BarColumn(), MofNCompleteColumn())
    total = options.asked.max_replays
    with Progress(*columns, console=Console(file=escapes.raw(out)), transient=True) as bar:
        task = bar.add_task(options.case, total=total)

        def tick(replays: int, events: int) -> None:
            bar.update(
                task,
                completed=replays,
                description=f"{escapes.line(options.case)}: {events} events",
            )

        yield tick
