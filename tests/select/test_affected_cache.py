"""The blob-id fact cache: reused when sound, rebuilt (never trusted) when not."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from corpus_tool.select.cache import FILE_NAME, FactCache
from corpus_tool.select.git import blob_id
from tests.select.affected_repo import CASES, GitCorpus
from tests.yaml_parses import counting

TRACE = b"events:\n- {seq: 1, type: tool_call, tool: get_order}\n"


def _cache_file(repo: GitCorpus) -> Path:
    return repo.root / ".git" / "corpus-tool" / FILE_NAME


def test_cache_parses_an_unchanged_blob_once(tmp_path: Path) -> None:
    reads: list[list[str]] = []
    blob = blob_id(TRACE)

    def read(blobs: list[str]) -> dict[str, bytes]:
        reads.append(blobs)
        return {blob: TRACE}

    first = FactCache.load(tmp_path)
    assert first.traces([blob], read)[blob].tools == ("get_order",)
    first.save()
    second = FactCache.load(tmp_path)
    assert second.traces([blob], read)[blob].tools == ("get_order",)
    assert (reads, second.parsed, second.hits) == ([[blob]], 0, 1)


def test_cache_entry_of_the_wrong_shape_is_parsed_again() -> None:
    blob = blob_id(TRACE)
    cache = FactCache(None, {blob: ["many", "tools"]}, {})
    assert cache.traces([blob], lambda _: {blob: TRACE})[blob].tools == ("get_order",)
    assert cache.parsed == 1


def test_cache_blob_git_cannot_read_counts_as_unreadable() -> None:
    cache = FactCache(None, {}, {})
    assert not cache.traces(["0" * 40], lambda _: {})["0" * 40].readable


def test_cache_lives_outside_the_tracked_tree(repo: GitCorpus) -> None:
    repo.write("src/tools/refund.py", "# v2\n")
    repo.commit()
    repo.affected("--base", "HEAD~1")
    assert _cache_file(repo).is_file()
    assert repo.git("status", "--porcelain") == ""


def test_cache_corrupt_file_is_rebuilt(repo: GitCorpus) -> None:
    repo.write("src/tools/refund.py", "# v2\n")
    repo.commit()
    expected = repo.affected("--base", "HEAD~1").ids
    _cache_file(repo).write_text("sha256 0000\n{not json")
    assert repo.affected("--base", "HEAD~1").ids == expected
    header, _, body = _cache_file(repo).read_text().partition("\n")
    assert header.startswith("sha256 ") and json.loads(body)["format"] == 1


def test_cache_tampered_file_is_not_trusted(repo: GitCorpus) -> None:
    repo.write("src/tools/refund.py", "# v2\n")
    repo.commit()
    repo.affected("--base", "HEAD~1")
    path = _cache_file(repo)
    header, _, body = path.read_text().partition("\n")
    data = json.loads(body)
    lookup_blob = repo.git("rev-parse", "HEAD:evals/cases/order-lookup/trace.yaml").strip()
    data["trace"][lookup_blob] = [2, ["create_refund"]]  # a lie, with the old checksum
    path.write_text(header + "\n" + json.dumps(data))
    assert "order-lookup" not in repo.affected("--base", "HEAD~1").ids


def test_cache_dir_can_be_moved_for_ci(repo: GitCorpus, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CORPUS_CACHE_DIR", str(tmp_path / "ci-cache"))
    repo.write("src/tools/refund.py", "# v2\n")
    repo.commit()
    repo.affected("--base", "HEAD~1")
    assert (tmp_path / "ci-cache" / FILE_NAME).is_file()
    assert not _cache_file(repo).exists()


def test_cache_of_an_older_format_is_rebuilt(tmp_path: Path) -> None:
    blob = blob_id(TRACE)
    body = json.dumps({"format": 0, "trace": {blob: [9, ["stale_tool"]]}, "expected": {}})
    digest = hashlib.sha256(body.encode()).hexdigest()
    (tmp_path / FILE_NAME).write_text(f"sha256 {digest}\n{body}")
    cache = FactCache.load(tmp_path)
    assert cache.traces([blob], lambda _: {blob: TRACE})[blob].tools == ("get_order",)
    cache.save()
    assert json.loads((tmp_path / FILE_NAME).read_text().partition("\n")[2])["format"] == 1


def test_a_warm_affected_parses_no_unchanged_case_file(
    repo: GitCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the facts cached, a run reads no YAML of an unchanged case, whichever facts it
    needs (tools, tiers, tags, sizes for shards); a changed case file is parsed, once."""
    parses = counting(monkeypatch, repo.root / "evals" / "cases")
    repo.write("src/prompts/system.txt", "You are the shop's assistant.\n")  # selects every case
    repo.commit()
    asks = (("--base", "HEAD~1"), ("--base", "HEAD~1", "--tier", "fast", "--shard", "1/2"))
    cold = [repo.affected(*ask) for ask in asks]
    assert sum(parses.counts().values()) >= len(CASES)  # the counter sees the cold parses
    for ask, first in zip(asks, cold, strict=True):
        parses.clear()
        assert repo.affected(*ask) == first
        assert parses.counts() == Counter(), parses.counts()
    repo.case("refund-ok", ["get_order", "create_refund", "get_order"], ["refund"])
    repo.commit()
    parses.clear()
    ran = repo.affected("--base", "HEAD~2", "--tier", "fast", "--shard", "1/2")
    assert ran.code == 0, ran.err
    assert parses.counts() == Counter({"refund-ok/trace": 1}), parses.counts()
