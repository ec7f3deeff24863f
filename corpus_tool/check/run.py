"""One replay run over chosen cases: each case run in a worker, graded, waived and shown as
its verdict arrives; then the details, the summary and the results files.

`corpus replay` runs it over the cases the command line selects; `corpus check` over the whole
corpus, reading each case through the validation run (validation_run.py), whose findings come
first in the report.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO, cast

from corpus_tool.check.live import live_details, live_summary
from corpus_tool.diff.inputs import replayed
from corpus_tool.diff.pair import compare
from corpus_tool.diff.render_text import pair_lines
from corpus_tool.diff.verdict import structural
from corpus_tool.grade import grade_checks
from corpus_tool.io import escapes, files
from corpus_tool.model.results import Verdict
from corpus_tool.model.trace import Trajectory
from corpus_tool.replay import results as report
from corpus_tool.replay.cases import CaseResult, load_case
from corpus_tool.replay.runner import Load, RunOptions, run_cases
from corpus_tool.replay.workers.pool import Pool
from corpus_tool.store.corpus import Corpus
from corpus_tool.waivers.book import Book, unused, waive


@dataclass(frozen=True)
class ReplayOptions:
    """What the command line asked of `corpus replay` / `corpus check`."""

    run: RunOptions
    output: str = "text"
    junit: Path | None = None
    results: Path | None = None
    diff: bool = False
    verbose: bool = False
    html: Path | None = None


QUIET = frozenset({Verdict.PASSED, Verdict.SKIPPED})
"""Verdicts whose details the end of a text run leaves out (unless -v, or a waiver shows)."""
DIFFED = frozenset({Verdict.FAILED, Verdict.WAIVED})
"""Verdicts `--diff` shows the recording against the replay for."""


def exit_code(results: Sequence[CaseResult]) -> int:
    """1 when a case did not pass, and when no case got a verdict at all (nothing proven)."""
    return 1 if not results or any(r.counts_as_failure for r in results) else 0


Preface = Callable[[], "list[str] | None"]
"""Lines to show before the first verdict line, or None while they are not known yet."""


def execute(
    corpus: Corpus,
    ids: Sequence[str],
    options: ReplayOptions,
    out: TextIO,
    book: Book,
    load: Load | None = None,
    preface: Preface | None = None,
    pool: Pool | None = None,
) -> list[CaseResult]:
    """Run the cases, printing a verdict line per case (and a progress bar on a terminal);
    the book's waivers are applied to each verdict before it is shown.

    `load` reads a case (`corpus check` validates it on the way); `preface` gives the lines
    that come first (`check`: the validation findings, known once every case was read):
    verdict lines wait for it; `pool`: workers started ahead (`check`'s), left running. The
    list returned keeps of each result what the end of the run shows (`_kept`), so memory
    stays flat as the corpus grows.
    """
    results: list[CaseResult] = []
    keep = functools.partial(_kept, options, {})

    def judged(say: Callable[[str], None]) -> Iterator[None]:
        cases = run_cases(corpus, ids, options.run, grader=grade_checks, load=load, pool=pool)
        for result in cases:
            waived = waive(result, book)
            results.append(keep(waived))
            say(report.headline(waived))
            yield None

    if options.output == "json":
        for _ in judged(lambda line: None):
            pass
        return results
    with _progress(out, len(ids)) as say:
        lines = _Lines(say, preface)
        for _ in judged(lines.verdict):
            pass
        lines.flush()
    return results


class _Lines:
    """Verdict lines, held back until the preface is known and shown."""

    def __init__(self, say: Say, preface: Preface | None) -> None:
        self._say = say
        self._preface = preface
        self._held: list[str] = []

    def verdict(self, line: str) -> None:
        self._held.append(line)
        if self._preface is not None:
            shown = self._preface()
            if shown is None:
                return
            self._preface = None
            for text in shown:
                self._say(text, False)
        self.flush()

    def flush(self) -> None:
        if self._preface is not None:  # the end of the run: the preface is known now
            for text in self._preface() or []:
                self._say(text, False)
            self._preface = None
        for line in self._held:
            self._say(line, True)
        self._held.clear()


def _kept(
    options: ReplayOptions, shapes: dict[tuple[Any, ...], CaseResult], result: CaseResult
) -> CaseResult:
    """What the end of the run needs of a result: all of it when a document shows every case
    (results, json); else a failure's or waiver's details (and its trajectory for --diff), and
    of a case that passed or was skipped its verdict and notes (`shapes`: the quiet results
    kept so far, by what they hold besides their case, shared by the cases that hold it)."""
    if options.results is not None or options.output == "json" or options.html is not None:
        return result
    if result.verdict not in QUIET or result.waivers or options.verbose:
        keep_run = options.diff and result.verdict in DIFFED
        return result if keep_run else replace(result, trajectory=None)
    # nor what only a results document shows (the keys regrade compares, the recorded
    # terminal, the tags): they hold the case's own strings, a few hundred bytes a case
    # and one copy of the words every case repeats (each case's documents have their own)
    quiet: dict[str, Any] = {
        **{"trajectory": None, "checks": (), "output": "", "stack": (), "tags": ()},
        **{"trace_key": None, "replay_key": None, "recorded_end": None},
        "status": sys.intern(result.status),
        "tier": sys.intern(result.tier),
        "mode": None if result.mode is None else sys.intern(result.mode),
    }
    if options.junit is not None:  # a JUnit testcase of a passing case: no details
        return replace(result, **quiet)
    plain = (result.divergence, result.error, result.live) == (None, None, None) and not (
        result.unused or result.extra_failures or result.notes
    )
    if not plain:
        return replace(result, **quiet, sequence_diff=())
    shape = (
        result.verdict,
        result.status,
        result.tier,
        result.mode,
        result.reason,
        result.ended_at,
    )
    if shape not in shapes:
        shapes[shape] = replace(result, **quiet, sequence_diff=(), case="", duration_ms=0.0)
    return cast(CaseResult, Quiet(result.case, result.duration_ms, shapes[shape]))


class Quiet:
    """A passed or skipped case as the end of a text run reads it: its id and duration, and
    for every other field the result shared by the cases that hold the same (a CaseResult
    keeps 25 fields, 232 bytes a case, where this keeps three: 64). Read-only, as a
    CaseResult is."""

    __slots__ = ("_shape", "case", "duration_ms")

    def __init__(self, case: str, duration_ms: float, shape: CaseResult) -> None:
        object.__setattr__(self, "case", case)
        object.__setattr__(self, "duration_ms", duration_ms)
        object.__setattr__(self, "_shape", shape)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._shape, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a case result is read-only: {name}")


def finish(
    corpus: Corpus,
    results: list[CaseResult],
    options: ReplayOptions,
    out: TextIO,
    command: str,
    book: Book,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Details of failures (with --diff, recording against replay), the summary, the files;
    the results document when one was built (for --results, JSON output or --html)."""
    doc = None
    if options.results is not None or options.output == "json" or options.html is not None:
        doc = {**report.document(corpus, results, command, book.entries()), **(extra or {})}
        if options.results is not None:
            report.write_results(options.results, doc)
        if options.output == "json":
            if options.junit is not None:
                report.write_junit(options.junit, corpus, results)
            out.write(files.json_text(doc))
            return doc
    if options.junit is not None:
        report.write_junit(options.junit, corpus, results)
    for result in sorted(results, key=lambda r: r.case):
        details = report.detail_lines(result, options.verbose) + live_details(result)
        if details and (result.counts_as_failure or result.waivers or options.verbose):
            out.write("\n" + escapes.lines([f"{result.case}:", *(f"  {d}" for d in details)]))
            if options.diff and result.verdict in DIFFED:
                lines = recording_diff(corpus, result)
                out.write("  diff (recording -> replay):\n")
                out.write(escapes.lines(f"    {line}" for line in lines))
    counts = report.summary(results)
    out.write(
        f"\n{counts['total']} case(s): {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['error']} error, {counts['known_unknown']} known_unknown, "
        f"{counts['skipped']} skipped, {counts['waived']} waived"
        + (f", {counts['flaky']} flaky" if counts.get("flaky") else "")
        + (f", {counts['stale']} stale" if counts.get("stale") else "")
        + "\n"
    )
    out.write(escapes.lines(live_summary(results)))
    out.write(escapes.lines(waiver_notes(book, results)))
    if not results:
        out.write("no case was replayed; a run without verdicts is not a pass\n")
    noted = sum(1 for r in results if r.notes)
    if noted and not options.verbose:
        out.write(
            f"{noted} case(s) hold model request fields only one side carries (not compared); "
            "-v lists them\n"
        )
    return doc


def waiver_notes(book: Book, results: Sequence[CaseResult]) -> list[str]:
    """What the run shows about the waivers of the cases it ran: expired, unusable, unused."""
    ran = {r.case for r in results}
    notes = [
        f"waiver {w.id} (case {w.case}) expired on {w.expires}: it waives nothing; renew it "
        "with a new reason or delete it"
        for w in book.expired
        if w.case in ran
    ]
    notes += [f"waiver {b.id} waives nothing: {b.problem}" for b in book.broken]
    notes += [
        f"waiver {w.id} (case {w.case}) is unused: every check it names passed; delete it"
        for w in unused(book, results)
    ]
    return notes


def recording_diff(corpus: Corpus, result: CaseResult) -> list[str]:
    """`corpus diff` of the case's recording and its replay, as lines."""
    if result.trajectory is None:
        return ["(the case did not run)"]
    trace = load_case(corpus, result.case).trace
    recording = Trajectory(trace.events, trace.terminal)
    run = replayed(result.trajectory, result.divergence, result.case)
    found = compare(recording, run.trajectory)
    return pair_lines(found, structural(found), ("recording", "replay"))


Say = Callable[[str, bool], None]
"""Shows a line; True: a verdict line, which advances the progress bar."""


@contextmanager
def _progress(out: TextIO, total: int) -> Iterator[Say]:
    """A rich progress bar on a terminal; plain lines otherwise (CI logs, pipes)."""
    if not (hasattr(out, "isatty") and out.isatty()) or total < 2:
        yield lambda line, _: print(escapes.line(line), file=out, flush=True)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(file=escapes.raw(out))  # its own codes draw the bar; lines are escaped
    columns = (TextColumn("replaying"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("cases", total=total)

        def say(line: str, verdict: bool) -> None:
            progress.console.print(escapes.line(line), markup=False, highlight=False)
            if verdict:
                progress.advance(task)

        yield say
