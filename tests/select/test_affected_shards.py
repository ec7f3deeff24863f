"""Shards and the machine formats (pytest arguments, GitHub matrix)."""

from __future__ import annotations

import shlex

import pytest

from corpus_tool.errors import UsageError
from corpus_tool.select.shard import ShardSpec, balance
from tests.select.affected_repo import CASES, GitCorpus


def _touch_prompts(repo: GitCorpus) -> None:
    repo.write("src/prompts/system.txt", "changed\n")
    repo.commit()


def test_affected_shards_partition_the_selection(repo: GitCorpus) -> None:
    _touch_prompts(repo)
    shards = [repo.affected("--base", "HEAD~1", "--shard", f"{k}/3").ids for k in (1, 2, 3)]
    flat = [case for shard in shards for case in shard]
    assert sorted(flat) == sorted(CASES)
    assert len(flat) == len(set(flat))
    assert all(shards)


def test_affected_shards_are_stable_across_runs(repo: GitCorpus) -> None:
    _touch_prompts(repo)
    first = repo.affected("--base", "HEAD~1", "--shard", "2/3").out
    repo.git("gc", "-q")  # nothing that changes the selection changes the shard
    assert repo.affected("--base", "HEAD~1", "--shard", "2/3").out == first


def test_affected_shards_balance_by_event_count(repo: GitCorpus) -> None:
    repo.case("huge", ["get_order"] * 40)
    _touch_prompts(repo)
    shards = [repo.affected("--base", "HEAD~1", "--shard", f"{k}/2").ids for k in (1, 2)]
    assert ["huge"] in shards  # the heaviest case takes a shard to itself


def test_affected_github_matrix_lists_every_shard(repo: GitCorpus) -> None:
    _touch_prompts(repo)
    matrix = repo.affected("--base", "HEAD~1", "--format", "github-matrix", "--shard", "2").json()
    assert [entry["shard"] for entry in matrix["include"]] == [1, 2]
    named = [case for entry in matrix["include"] for case in entry["cases"].split()]
    assert sorted(named) == sorted(CASES)
    assert {entry["of"] for entry in matrix["include"]} == {2}


def test_affected_github_matrix_without_shard_is_one_job(repo: GitCorpus) -> None:
    _touch_prompts(repo)
    matrix = repo.affected("--base", "HEAD~1", "--format", "github-matrix").json()
    assert len(matrix["include"]) == 1
    assert matrix["include"][0]["cases"] == " ".join(sorted(CASES))


def test_affected_pytest_format_names_corpus_and_cases(repo: GitCorpus) -> None:
    repo.write("src/tools/refund.py", "# v2\n")
    repo.commit()
    out = repo.affected("--base", "HEAD~1", "--format", "pytest", "--shard", "1/1").out
    assert shlex.split(out) == [
        "--corpus",
        ".",
        "--corpus-case",
        "refund-ok",
        "--corpus-case",
        "refund-twice",
    ]


def test_affected_pytest_format_from_the_repository_root(repo: GitCorpus, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo.write("src/tools/orders.py", "# v2\n")
    repo.commit()
    monkeypatch.chdir(repo.root)
    out = repo.affected("--base", "HEAD~1", "--format", "pytest", directory="evals").out
    assert out == "--corpus evals --corpus-case order-lookup --corpus-case refund-ok\n"


def test_affected_shard_count_alone_needs_a_listing_format(repo: GitCorpus) -> None:
    result = repo.affected("--base", "HEAD", "--shard", "3")
    assert result.code == 2
    assert "give K/N" in result.err


@pytest.mark.parametrize("text", ["0/2", "3/2", "a/b", "2/0", "", "1/99999999999", "1001"])
def test_shard_spec_refuses_nonsense(text: str) -> None:
    with pytest.raises(UsageError):
        ShardSpec.parse(text)


def test_balance_puts_every_case_in_exactly_one_shard() -> None:
    weights = {f"case-{i:03d}": (i * 7) % 13 + 1 for i in range(100)}
    shards = balance(weights, 4)
    ids = [case for shard in shards for case in shard.cases]
    assert sorted(ids) == sorted(weights)
    loads = [shard.weight for shard in shards]
    assert max(loads) - min(loads) <= max(weights.values())
