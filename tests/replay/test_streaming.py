"""Replay reads cases as workers take them, and grades only what the files held before any agent
ran: memory holds the cases in flight, and a file changed during the run cannot pass."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpus_tool.grade import grade_checks
from corpus_tool.replay.cases import LoadedCase, load_case
from corpus_tool.replay.runner import RunOptions, run_cases
from corpus_tool.store.corpus import Corpus, load_config
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
