"""The parsed-document cache: a warm `corpus check` parses no case file and says what a cold one
says, byte for byte; a stale, foreign or broken entry is ignored and rebuilt, never trusted.

The entries are found and read here without the cache's code: each is a header line and a
marshal body, the documents by kind, so the case an entry belongs to is its trace's `id`.
"""

from __future__ import annotations

import marshal
import os
import shutil
import stat
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.io import files
from tests.conftest import Cli
from tests.validate.broken_entries import BREAKAGES

PASSING = "refund-success"
FAILING = "refund-wrong-unit"  # diverges at its first model call (waived in the example corpus)


@pytest.fixture
def case_parses(monkeypatch: pytest.MonkeyPatch, corpus: Path) -> Counter[str]:
    """How often this process's YAML loader was given the bytes of each case file (by
    `case/kind`), whichever function asked: every parse constructs a files.Loader."""
    seen: Counter[str] = Counter()
    real = files.Loader.__init__

    def counting(self: Any, stream: Any) -> None:
        data = stream.encode("utf-8") if isinstance(stream, str) else stream
        for path in (corpus / "cases").glob("*/*.yaml"):
            if path.read_bytes() == data:
                seen[f"{path.parent.name}/{path.stem}"] += 1
        real(self, stream)

    monkeypatch.setattr(files.Loader, "__init__", counting)
    return seen


def check(cli: Cli, corpus: Path, *extra: str) -> tuple[int, str]:
    run = cli("-C", corpus, "check", *extra)
    assert run.err == "", run.err
    return run.code, run.out


def same_as_cold(cli: Cli, corpus: Path) -> tuple[int, str]:
    """`check` cached (twice: the second reads what the first kept) and `--no-cache` say the
    same bytes, in text and with --diff."""
    for extra in ((), ("--diff", "-v")):
        cold = check(cli, corpus, "--no-cache", *extra)
        for _ in range(2):
            assert check(cli, corpus, *extra) == cold
    return check(cli, corpus, "--no-cache")


def primed(cli: Cli, corpus: Path) -> tuple[int, str]:
    """What a cold run says, after a cached run kept every case's documents."""
    cold = check(cli, corpus, "--no-cache")
    assert check(cli, corpus) == cold
    return cold


def entries(cache_dir: Path) -> dict[str, Path]:
    """Each document entry by the case its trace names."""
    found = {}
    for path in (cache_dir / "documents").glob("*/*"):
        documents = marshal.loads(path.read_bytes().partition(b"\n")[2])
        if set(documents) == {"trace", "expected"}:  # one `check` kept (regrade keeps files)
            found[documents["trace"]["id"]] = path
    return found


def test_a_warm_check_parses_no_case_file_and_says_what_a_cold_one_says(
    cli: Cli, corpus: Path, cache_dir: Path, case_parses: Counter[str]
) -> None:
    cases = sorted(p.name for p in (corpus / "cases").iterdir() if p.is_dir())
    cold = check(cli, corpus, "--no-cache")
    assert sum(case_parses.values()) >= 2 * len(cases)  # the counter sees the parses
    case_parses.clear()
    assert check(cli, corpus) == cold  # cold cache: parses, keeps the documents
    assert sorted(entries(cache_dir)) == cases
    case_parses.clear()
    assert check(cli, corpus) == cold
    assert check(cli, corpus, "--format", "json")[0] == cold[0]
    assert case_parses == Counter(), case_parses


def test_a_changed_file_is_parsed_again_and_its_new_verdict_shown(
    cli: Cli, corpus: Path, cache_dir: Path, case_parses: Counter[str]
) -> None:
    _, before = same_as_cold(cli, corpus)
    assert f"PASS  {PASSING}" in before
    expected = corpus / "cases" / PASSING / "expected.yaml"
    text = expected.read_text(encoding="utf-8")
    expected.write_text(text.replace("status: active", "status: retired", 1), encoding="utf-8")
    case_parses.clear()
    after = check(cli, corpus)
    assert after == check(cli, corpus, "--no-cache")
    assert f"SKIP  {PASSING}" in after[1] and after[1] != before
    case_parses.clear()
    assert check(cli, corpus) == after
    assert case_parses == Counter(), case_parses


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_entry_is_ignored_and_rebuilt(
    cli: Cli, corpus: Path, cache_dir: Path, case_parses: Counter[str], breakage: str
) -> None:
    code, cold = primed(cli, corpus)
    entry = entries(cache_dir)[PASSING]
    BREAKAGES[breakage](entry)
    case_parses.clear()
    assert check(cli, corpus) == (code, cold)
    assert case_parses[f"{PASSING}/trace"] == 1, case_parses  # parsed again, that case only
    assert sum(case_parses.values()) == 2, case_parses
    if breakage != "a directory":  # rebuilt in place: the next run parses nothing
        assert stat.S_ISREG(entry.lstat().st_mode)
        case_parses.clear()
        assert check(cli, corpus) == (code, cold)
        assert case_parses == Counter(), case_parses


def test_a_foreign_entry_never_answers_for_another_case(
    cli: Cli, corpus: Path, cache_dir: Path, case_parses: Counter[str]
) -> None:
    """The failing case's documents, copied (and linked) under the passing case's name: taken,
    they would fail the passing case."""
    code, cold = primed(cli, corpus)
    found = entries(cache_dir)
    target, foreign = found[PASSING], found[FAILING]
    for place in ("copied", "linked"):
        target.unlink()
        if place == "copied":
            shutil.copyfile(foreign, target)
            target.chmod(0o600)
        else:
            target.symlink_to(foreign)
        assert check(cli, corpus) == (code, cold), place
        assert entries(cache_dir)[PASSING] == target  # rebuilt with the right documents


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to chown")
def test_an_entry_another_user_owns_is_not_read(
    cli: Cli, corpus: Path, cache_dir: Path, case_parses: Counter[str]
) -> None:
    code, cold = primed(cli, corpus)
    entry = entries(cache_dir)[PASSING]
    os.chown(entry, 65534, 65534)
    case_parses.clear()
    assert check(cli, corpus) == (code, cold)
    assert case_parses[f"{PASSING}/trace"] == 1, case_parses


def test_a_place_that_cannot_be_written_is_no_error(
    cli: Cli, corpus: Path, cache_dir: Path, case_parses: Counter[str]
) -> None:
    (cache_dir / "documents").write_text("a file where the entries' directory should be")
    code, cold = same_as_cold(cli, corpus)
    case_parses.clear()
    assert check(cli, corpus) == (code, cold)
    assert case_parses[f"{PASSING}/trace"] == 1  # nothing kept: parsed every run


def test_a_warm_regrade_parses_no_case_file_and_says_what_a_cold_one_says(
    cli: Cli, corpus: Path, cache_dir: Path, case_parses: Counter[str], tmp_path: Path
) -> None:
    stored = tmp_path / "run.json"
    code, _ = check(cli, corpus, "--no-cache", "--results", stored)
    shutil.rmtree(cache_dir, ignore_errors=True)
    case_parses.clear()
    cold = cli("-C", corpus, "regrade", stored)
    assert cold.err == "" and cold.code == code, cold.err
    assert case_parses[f"{PASSING}/expected"] == 1, case_parses  # the counter sees the parses
    for breakage in (None, "truncated"):
        if breakage is not None:  # a broken entry is parsed again, never trusted
            for path in (cache_dir / "documents").glob("*/*"):
                BREAKAGES[breakage](path)
        case_parses.clear()
        warm = cli("-C", corpus, "regrade", stored, "--format", "json")
        assert warm.code == code
        case_parses.clear()
        again = cli("-C", corpus, "regrade", stored)
        assert (again.code, again.out, again.err) == (cold.code, cold.out, cold.err)
        assert case_parses == Counter(), case_parses
    expected = corpus / "cases" / PASSING / "expected.yaml"
    expected.write_text(expected.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    case_parses.clear()
    assert cli("-C", corpus, "regrade", stored).out == cold.out  # same verdicts, re-read
    assert case_parses == Counter({f"{PASSING}/expected": 1}), case_parses
