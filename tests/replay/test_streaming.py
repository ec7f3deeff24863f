"""Replay reads cases as workers take them, and grades only what the files held before any agent
ran: memory holds the cases in flight, and a file changed during the run cannot pass."""

from __future__ import annotations

import io
import os
import shutil
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.check.run import Quiet, ReplayOptions, execute, exit_code, waiver_notes
from corpus_tool.grade import grade_checks
from corpus_tool.replay import results as report
from corpus_tool.replay.cases import CaseResult, LoadedCase, load_case
from corpus_tool.replay.runner import RunOptions, run_cases
from corpus_tool.store.corpus import Corpus, load_config
from corpus_tool.waivers.book import read_book
from tests.conftest import ROOT
from tests.replay.conftest import copy_corpus

COPIES = 12


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    """The example corpus plus copies of its passing reference case, with the example agent."""
    root = copy_corpus(tmp_path)
    shutil.copytree(ROOT / "examples" / "refund_agent", root / "examples" / "refund_agent")
    (root / "examples" / "__init__.py").touch()
    source = root / "cases" / "refund-success"
    for n in range(COPIES):
        target = root / "cases" / f"refund-success-{n:02d}"
        target.mkdir()
        for name in ("trace.yaml", "expected.yaml"):
            text = (source / name).read_text(encoding="utf-8")
            (target / name).write_text(text.replace("id: refund-success\n", f"id: {target.name}\n"))
    return Corpus(root, load_config(root))


def test_cases_are_read_as_the_worker_takes_them(corpus: Corpus) -> None:
    read: list[str] = []

    def load(case_id: str) -> LoadedCase:
        read.append(case_id)
        return load_case(corpus, case_id)

    ids = corpus.case_ids()
    seen = []
    for result in run_cases(corpus, ids, RunOptions(), grader=grade_checks, load=load):
        seen.append((result.case, len(read)))
    assert [case for case, _ in seen] == ids  # in order, every case
    first_verdict_after = seen[0][1]
    assert first_verdict_after <= 4, seen  # one worker: two cases waiting for it, not all
    assert read == ids


def test_a_case_file_changed_after_the_run_began_is_an_error(corpus: Corpus) -> None:
    ids = corpus.case_ids()
    victim = "refund-success-05"

    def load(case_id: str) -> LoadedCase:
        if case_id == ids[1]:  # agents already run by now: a later case changes under us
            path = corpus.cases_dir / victim / "expected.yaml"
            path.write_text(path.read_text().replace("status: submitted", "status: failed"))
        return load_case(corpus, case_id)

    results = {
        r.case: r for r in run_cases(corpus, ids, RunOptions(), grader=grade_checks, load=load)
    }
    assert results[victim].verdict == "error"
    assert "changed while this run was going on" in (results[victim].error or "")
    assert results["refund-success-04"].verdict == "passed"


def test_a_change_keeping_size_and_mtime_is_still_seen(corpus: Corpus) -> None:
    """The same size and modification time put back (`os.utime`): the change time and the
    file named in the error tell it."""
    ids = corpus.case_ids()
    victim = corpus.cases_dir / "refund-success-07" / "trace.yaml"

    def load(case_id: str) -> LoadedCase:
        if case_id == ids[1]:
            before = victim.stat()
            text = victim.read_text(encoding="utf-8")
            victim.write_text(text.replace("refund", "refumd", 1), encoding="utf-8")
            os.utime(victim, ns=(before.st_atime_ns, before.st_mtime_ns))
            assert victim.stat().st_size == before.st_size
        return load_case(corpus, case_id)

    results = {
        r.case: r for r in run_cases(corpus, ids, RunOptions(), grader=grade_checks, load=load)
    }
    error = results["refund-success-07"].error or ""
    assert "changed while this run was going on" in error and "trace.yaml" in error, error
    assert results["refund-success-06"].verdict == "passed"


@pytest.mark.parametrize("year", ["2400-01-01", "1901-12-14"])
def test_files_dated_far_from_now_run_as_any_other(corpus: Corpus, year: str) -> None:
    """A time in nanoseconds past 64 bits (the year 2400), or before 1970, is no error."""
    folder = corpus.cases_dir / "refund-success-03"
    stamp = int(datetime.fromisoformat(year).replace(tzinfo=timezone.utc).timestamp())
    for name in ("trace.yaml", "expected.yaml"):
        os.utime(folder / name, (stamp, stamp))
    if (folder / "trace.yaml").stat().st_mtime != stamp:
        pytest.skip(f"this file system cannot date a file {year}")
    ids = corpus.case_ids()
    results = {r.case: r for r in run_cases(corpus, ids, RunOptions(), grader=grade_checks)}
    assert results["refund-success-03"].verdict == "passed", results["refund-success-03"].error


def test_a_text_run_keeps_of_each_quiet_case_what_a_json_run_says_of_it(corpus: Corpus) -> None:
    """A text run keeps a passed or skipped case as its id beside one result shared by the
    cases that hold the same; what the end of the run reads of it (verdict, checks, reason,
    summary, exit code, waiver notes) is what the full result of a JSON run says."""
    ids = corpus.case_ids()
    book = read_book(corpus, date.today())
    text = execute(corpus, ids, ReplayOptions(RunOptions()), io.StringIO(), book)
    full = execute(corpus, ids, ReplayOptions(RunOptions(), output="json"), io.StringIO(), book)

    def said(r: CaseResult) -> tuple[Any, ...]:
        reached = (r.failed_checks, r.not_reached, r.counts_as_failure, r.live, r.notes)
        return (r.case, r.verdict, r.status, r.tier, r.reason, r.error, *reached)

    assert [said(r) for r in text] == [said(r) for r in full]
    copies = {f"refund-success-{n:02d}" for n in range(COPIES)}  # the passing case, copied
    assert {r.case: r.verdict for r in text if r.case in copies} == dict.fromkeys(copies, "passed")
    assert report.summary(text) == report.summary(full)
    assert exit_code(text) == exit_code(full)
    assert waiver_notes(book, text) == waiver_notes(book, full)
    quiet = [r for r in text if isinstance(r, Quiet)]
    assert len(quiet) >= COPIES  # the passing copies, at least
    assert copies <= {r.case for r in quiet}
    first = quiet[0].case
    with pytest.raises(AttributeError):
        quiet[0].case = "another"  # type: ignore[misc]
    assert quiet[0].case == first
