"""A commit's cases are listed by directory, and their files read as a rule asks for them: the
selection is the one the whole listing gives (the index's, which lists every file), for each
kind of rule, with odd names in cases/ beside the cases."""

from __future__ import annotations

import json

import pytest

from tests.select.affected_repo import GitCorpus

CHANGES = {
    "a tool rule (every trace read)": ["src/tools/refund.py"],
    "a tag rule (every expected.yaml read)": ["src/inventory/stock.py"],
    "one case file": ["evals/cases/order-lookup/trace.yaml"],
    "a waiver": ["evals/waivers/W-1.yaml"],
    "corpus.yaml": ["evals/corpus.yaml"],
}


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("extra", [[], ["--shard", "2"], ["--tier", "fast"]])
def test_selection_of_a_commit_is_that_of_its_whole_listing(
    repo: GitCorpus, change: str, extra: list[str]
) -> None:
    repo.write("evals/cases/README.md", "not a case\n")  # a file directly in cases/
    repo.write("evals/cases/Not A Case/trace.yaml", "events: []\n")  # no valid id
    repo.write("evals/cases/refund-ok/notes/more.yaml", "a: 1\n")  # a case with a subdirectory
    repo.commit("odd names")
    for path in CHANGES[change]:
        (repo.root / path).write_text((repo.root / path).read_text() + "# changed\n")
    repo.commit()
    by_case = repo.affected("--base", "HEAD~1", "--format", "json", *extra)
    whole = repo.affected("--base", "HEAD~1", "--format", "json", "--staged", *extra)
    assert by_case.code == whole.code == 0, by_case.err + whole.err
    listed, indexed = json.loads(by_case.out), json.loads(whole.out)
    for doc in (listed, indexed):
        doc.pop("head", None)
    assert listed == indexed
    assert listed["total_cases"] == 5  # the README and "Not A Case" are no cases
