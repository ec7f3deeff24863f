"""`corpus gate`: base against head, case by case; exit 1 when the change must not merge."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool.errors import CorpusError, InputError, UsageError
from corpus_tool.gate import render, render_markdown
from corpus_tool.gate.policy import Decision, judge
from corpus_tool.gate.revisions import Revisions, compare_revisions
from corpus_tool.gate.rounds import MAX_REPEAT
from corpus_tool.io import escapes, files
from corpus_tool.model.config import GateSection
from corpus_tool.model.results import read_results
from corpus_tool.replay import results
from corpus_tool.replay.cases import CaseResult
from corpus_tool.replay.runner import RunOptions
from corpus_tool.store.corpus import load_config, locate

SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


@dataclass(frozen=True)
class GateOptions:
    """The command line of `corpus gate`: two results files, or revisions to replay."""

    documents: tuple[Path, ...] = ()
    revisions: Revisions | None = None
    run: RunOptions = field(default_factory=RunOptions)
    output: str = "text"
    junit: Path | None = None
    markdown: Path | None = None
    html: Path | None = None
    repeat: int | str | None = None  # --repeat K|auto (None: corpus.yaml gate.repeat, else 1)
    max_repeat: int | None = None  # --max-repeat (auto only)


def gate(
    directory: Path | None,
    cwd: Path,
    options: GateOptions,
    today: date,
    out: TextIO,
    err: TextIO,
    environ: Mapping[str, str],
) -> int:
    """Judge the change, print and write the reports; 1 when blocked, else 0."""
    if options.revisions is None:
        base_path, head_path = _two(options.documents)
        base, head = read_results(base_path), read_results(head_path)
        sides = render.SideNames(str(base_path), str(head_path))
        decision = judge(base, head, today, settings=_settings(directory, cwd))
        if options.html is not None:
            from corpus_tool.report.write import gate_report  # the HTML report only when asked

            gate_report(options.html, base, head, decision, sides)
    else:
        root = locate(directory, cwd)
        config = load_config(root)
        settings = config.gate
        asked, run = _repeats(options, settings, options.run.model or config.replay.model)
        compared = compare_revisions(root, asked, run, today, _tell(err), _say(err))
        sides = render.SideNames(compared.base_label, compared.head_label)
        decision = judge(
            compared.base, compared.head, today, compared.removed, settings, compared.changed
        )
        if options.html is not None:
            from corpus_tool.report.write import gate_report  # the HTML report only when asked

            gate_report(options.html, compared.base, compared.head, decision, sides)
    _write(decision, sides, options, environ)
    if options.output == "json":
        out.write(files.json_text(render.json_doc(decision, sides)))
    else:
        out.write(render.text(decision, sides))
    return 1 if decision.blocked else 0


def _repeats(
    options: GateOptions, settings: GateSection, model: str
) -> tuple[Revisions, RunOptions]:
    """--repeat K (or gate.repeat) as the run's repeat; auto as rounds up to --max-repeat."""
    assert options.revisions is not None
    repeat = options.repeat if options.repeat is not None else settings.repeat
    if options.max_repeat is not None and repeat != "auto":
        raise UsageError("--max-repeat bounds --repeat auto: give --repeat auto with it")
    if repeat != "auto":
        return options.revisions, replace(options.run, repeat=int(repeat or 1))
    if model != "live":
        raise UsageError(
            "--repeat auto runs live attempts in rounds: give --model live (recorded replays "
            "are exact; --repeat N checks their determinism)"
        )
    if options.revisions.head_results is not None:
        raise UsageError("--repeat auto replays both sides in rounds: leave out --head-results")
    top = options.max_repeat or MAX_REPEAT
    return replace(options.revisions, auto=top, settings=settings), options.run


def _settings(directory: Path | None, cwd: Path) -> GateSection:
    """corpus.yaml's gate section when the command runs in a corpus; else the defaults."""
    try:
        return load_config(locate(directory, cwd)).gate
    except CorpusError:
        return GateSection()


def _two(documents: tuple[Path, ...]) -> tuple[Path, Path]:
    if len(documents) != 2:
        raise UsageError("give two results files (BASE.json HEAD.json), or --base REV")
    return documents[0], documents[1]


def _write(
    decision: Decision, sides: render.SideNames, options: GateOptions, environ: Mapping[str, str]
) -> None:
    if options.junit is not None:
        files.atomic_write(options.junit, render.junit(decision))
    text = render_markdown.markdown(decision, sides)
    if options.markdown is not None:
        files.atomic_write(options.markdown, text)
    summary = environ.get(SUMMARY_ENV)
    if summary:  # GitHub Actions shows this file on the run's page; other steps append too
        try:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as error:
            raise InputError(
                f"cannot append the gate summary ({error.strerror or error}); check {SUMMARY_ENV}",
                summary,
            ) from None


def _tell(err: TextIO) -> Callable[[str], None]:
    def tell(line: str) -> None:
        print(f"corpus gate: {escapes.line(line)}", file=err, flush=True)

    return tell


def _say(err: TextIO) -> Callable[[CaseResult], None]:
    def say(result: CaseResult) -> None:
        print(f"  {escapes.line(results.headline(result))}", file=err, flush=True)

    return say
