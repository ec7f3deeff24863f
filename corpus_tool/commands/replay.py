"""`corpus replay [CASE...]`: run cases against the agent with the recording as the world."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, TextIO

from corpus_tool import files
from corpus_tool.compare.pair import compare
from corpus_tool.compare.sides import replayed
from corpus_tool.compare.text import pair_lines
from corpus_tool.compare.verdict import structural
from corpus_tool.corpus import Corpus
from corpus_tool.gate.waivers import Book, read_book, unused, waive
from corpus_tool.grade import grade_checks
from corpus_tool.model.trace import Trajectory
from corpus_tool.replay import results as report
from corpus_tool.replay.cases import CaseResult, load_case
from corpus_tool.replay.suite import RunOptions, run, select


@dataclass(frozen=True)
class ReplayOptions:
    """What the command line asked of `corpus replay` / `corpus check`."""

    run: RunOptions
    output: str = "text"
    junit: Path | None = None
    results: Path | None = None
    diff: bool = False
    verbose: bool = False


def replay(corpus: Corpus, options: ReplayOptions, out: TextIO, today: date) -> int:
    """Replay and grade the selected cases; 0 when none fails (waived ones included), else 1."""
    book = read_book(corpus, today)
    results = execute(corpus, select(corpus, options.run), options, out, book)
    finish(corpus, results, options, out, "replay", book)
    return exit_code(results)


def exit_code(results: Sequence[CaseResult]) -> int:
    """1 when a case did not pass, and when no case got a verdict at all (nothing proven)."""
    return 1 if not results or any(r.counts_as_failure for r in results) else 0


def execute(
    corpus: Corpus,
    ids: Sequence[str],
    options: ReplayOptions,
    out: TextIO,
    book: Book,
    valid: Mapping[Path, Any] | None = None,
) -> list[CaseResult]:
    """Run the cases, printing a verdict line per case (and a progress bar on a terminal);
    the book's waivers are applied to each verdict before it is shown.

    `valid`: case files already parsed and schema-checked in this run, not read again.
    """
    results: list[CaseResult] = []

    def judged(say: Callable[[str], None]) -> Callable[[CaseResult], None]:
        def seen(result: CaseResult) -> None:
            results.append(waive(result, book))
            say(report.headline(results[-1]))

        return seen

    if options.output == "json":
        run(corpus, ids, options.run, judged(lambda line: None), grader=grade_checks, valid=valid)
        return results
    with _progress(out, len(ids)) as say:
        run(corpus, ids, options.run, judged(say), grader=grade_checks, valid=valid)
    return results


def finish(
    corpus: Corpus,
    results: list[CaseResult],
    options: ReplayOptions,
    out: TextIO,
    command: str,
    book: Book,
    extra: dict[str, Any] | None = None,
    valid: Mapping[Path, Any] | None = None,
) -> None:
    """Details of failures (with --diff, recording against replay), the summary, the files."""
    doc = {**report.document(corpus, results, command, book.entries()), **(extra or {})}
    if options.results is not None:
        report.write_results(options.results, doc)
    if options.junit is not None:
        report.write_junit(options.junit, corpus, results)
    if options.output == "json":
        out.write(files.json_text(doc))
        return
    for result in sorted(results, key=lambda r: r.case):
        details = report.detail_lines(result, options.verbose)
        if details and (result.counts_as_failure or result.waivers or options.verbose):
            out.write(f"\n{result.case}:\n" + "".join(f"  {line}\n" for line in details))
            if options.diff and result.verdict in ("failed", "waived"):
                lines = recording_diff(corpus, result, valid)
                out.write("  diff (recording -> replay):\n")
                out.write("".join(f"    {line}\n" for line in lines))
    counts = doc["summary"]
    out.write(
        f"\n{counts['total']} case(s): {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['error']} error, {counts['known_unknown']} known_unknown, "
        f"{counts['skipped']} skipped, {counts['waived']} waived\n"
    )
    out.writelines(f"{line}\n" for line in waiver_notes(book, results))
    if not results:
        out.write("no case was replayed; a run without verdicts is not a pass\n")
    noted = sum(1 for r in results if r.notes)
    if noted and not options.verbose:
        out.write(
            f"{noted} case(s) hold model request fields only one side carries (not compared); "
            "-v lists them\n"
        )


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


def recording_diff(
    corpus: Corpus, result: CaseResult, valid: Mapping[Path, Any] | None
) -> list[str]:
    """`corpus diff` of the case's recording and its replay, as lines."""
    if result.trajectory is None:
        return ["(the case did not run)"]
    trace = load_case(corpus, result.case, valid).trace
    recording = Trajectory(trace.events, trace.terminal)
    divergence = result.divergence.as_dict() if result.divergence else None
    run = replayed(result.trajectory, divergence, result.case)
    found = compare(recording, run.trajectory)
    return pair_lines(found, structural(found), ("recording", "replay"))


@contextmanager
def _progress(out: TextIO, total: int) -> Iterator[Callable[[str], None]]:
    """A rich progress bar on a terminal; plain lines otherwise (CI logs, pipes)."""
    if not (hasattr(out, "isatty") and out.isatty()) or total < 2:
        yield lambda line: print(line, file=out, flush=True)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(file=out)
    columns = (TextColumn("replaying"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("cases", total=total)

        def say(line: str) -> None:
            progress.console.print(line, markup=False, highlight=False)
            progress.advance(task)

        yield say
