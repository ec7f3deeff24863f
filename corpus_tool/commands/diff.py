"""`corpus diff A B`: what changed between two runs, and whether it matters."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool.diff.inputs import Run, Side, Suite, load_side
from corpus_tool.diff.judge import JudgeRequest, judge_named, opinion
from corpus_tool.diff.pair import PairDiff, compare
from corpus_tool.diff.render_json import pair_data, suite_data
from corpus_tool.diff.render_text import pair_lines, pair_markdown, suite_lines, suite_markdown
from corpus_tool.diff.suites import Ask, compare_suites
from corpus_tool.diff.verdict import with_judge
from corpus_tool.errors import CorpusError, InputError
from corpus_tool.io import escapes, files
from corpus_tool.store.corpus import Corpus


@dataclass(frozen=True)
class DiffOptions:
    """What the command line asked of `corpus diff`."""

    a: Path
    b: Path
    output: str = "text"
    ignore: tuple[str, ...] = ()
    judge: str | None = None
    html: Path | None = None


def diff(options: DiffOptions, out: TextIO, open_corpus: Callable[[], Corpus]) -> int:
    """Compare A with B; 1 on a regression, 0 otherwise (a warning never blocks)."""
    a, b = (load_side(_where(given, open_corpus)) for given in (options.a, options.b))
    with _asker(options, open_corpus) as ask:
        if isinstance(a, Suite) and isinstance(b, Suite):
            return _suites(a, b, options, ask, out)
        run_a, run_b = _run(a, b, options.a), _run(b, a, options.b)
        found = compare(run_a.trajectory, run_b.trajectory, options.ignore)
        said = ask(run_a, run_b, found) if ask is not None and not found.identical else None
    verdict = with_judge(found, said)
    if options.html is not None:
        labels = (str(options.a), str(options.b))
        from corpus_tool.report.write import diff_report  # the HTML report only when asked

        diff_report(options.html, labels, run_a, run_b, verdict.verdict)
    if options.output == "json":
        out.write(files.json_text(pair_data(found, verdict)))
    elif options.output == "markdown":
        out.write(escapes.lines(pair_markdown(found, verdict)))
    else:
        lines = [f"A: {options.a}", f"B: {options.b}", *pair_lines(found, verdict)]
        out.write(escapes.lines(lines))
    return 1 if verdict.blocks else 0


def _where(given: Path, open_corpus: Callable[[], Corpus]) -> Path:
    """A path as given; a bare name that is no file names that case of the corpus."""
    if given.exists() or len(given.parts) != 1:
        return given
    try:
        cases = open_corpus().cases_dir
    except CorpusError:  # no corpus here: the name stays a path, reported as missing
        return given
    if not (cases / given.name / "trace.yaml").is_file():
        raise InputError(f"no such file, nor a case of that id in {cases}", given)
    return cases / given.name


def _suites(a: Suite, b: Suite, options: DiffOptions, ask: Ask | None, out: TextIO) -> int:
    result = compare_suites(a, b, options.ignore, ask)
    if options.html is not None and result.cases:
        labels = (str(options.a), str(options.b))
        from corpus_tool.report.write import suites_report  # the HTML report only when asked

        suites_report(options.html, labels, a.results, b.results, date.today())
    if not result.cases:
        raise InputError(
            "no case of either results document carries a replayed run; write both with "
            "`corpus replay --results FILE` of this version",
            options.b,
        )
    if options.output == "json":
        out.write(files.json_text(suite_data(result)))
    else:
        lines = suite_markdown(result) if options.output == "markdown" else suite_lines(result)
        out.write(escapes.lines(lines))
    return 1 if result.worst == "regression" else 0


def _run(side: Side, other: Side, path: Path) -> Run:
    """A run to compare: the side itself, or the case of a results document the other names."""
    if isinstance(side, Run):
        return side
    wanted = other.case if isinstance(other, Run) else None
    found = side.cases.get(wanted) if wanted is not None else None
    if found is None:
        raise InputError(f"holds no case {wanted!r} to compare with the trace", path)
    if found.run is None:
        why = f", {found.error}" if found.error else ""
        message = f"case {wanted} did not run ({found.verdict}{why}): nothing to compare"
        raise InputError(message, path)
    return found.run


@contextmanager
def _asker(options: DiffOptions, open_corpus: Callable[[], Corpus]) -> Iterator[Ask | None]:
    """The judge's opinion on a pair, when --judge names one (registered in corpus.yaml)."""
    if options.judge is None:
        yield None
        return
    name = options.judge
    with judge_named(open_corpus(), name) as judge:

        def ask(a: Run, b: Run, found: PairDiff) -> str | None:
            if found.identical:
                return None
            request = JudgeRequest(a.case or b.case, a.input or b.input, a.trajectory, b.trajectory)
            return opinion(judge, name, request)

        yield ask
