"""`corpus forget` racing `corpus mv`, and a forget that could search nothing.

A forget that exits 0 has removed every case holding the value: with any number of `mv`s
renaming cases meanwhile, no file of the corpus holds the pseudonym afterwards (a plain byte
search, not the tool's own matcher). A forget that meets a write in progress may instead stop
busy (exit 2) and say to rerun. A forget that could not search a case says so and exits 1.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests import processes
from tests.conftest import Cli
from tests.redact.incidents import add

SUBJECT = "jane.roe@example.org"
ROUNDS = 30


def _pseudonym(corpus: Path, case: str) -> bytes:
    trace = (corpus / "cases" / case / "trace.yaml").read_text(encoding="utf-8")
    line = trace.split("user_message: ", 1)[1].splitlines()[0]
    word = next(w for w in line.strip("'\"").split() if "@" in w)
    return word.strip(".,'\"").encode()


def _holding(corpus: Path, needle: bytes) -> list[str]:
    """Every file under the corpus whose bytes hold the needle (hidden entries included)."""
    return sorted(
        str(p.relative_to(corpus))
        for p in corpus.rglob("*")
        if p.is_file() and not p.is_symlink() and needle in p.read_bytes()
    )


def test_forget_racing_mv_never_reports_success_while_a_case_holds_the_value(
    corpus_dir: Path, tmp_path: Path, redaction_key: str, cli: Cli
) -> None:
    add(cli, corpus_dir, tmp_path, "a", f"refund me, I am {SUBJECT}")
    add(cli, corpus_dir, tmp_path, "bystander", "refund me, I am someone else")
    needle = _pseudonym(corpus_dir, "a")
    assert _holding(corpus_dir, needle) == ["cases/a/trace.yaml"]
    env = {"CORPUS_REDACTION_KEY": redaction_key}
    outcomes: dict[str, int] = {"erased": 0, "busy": 0}
    for round_ in range(ROUNDS):
        corpus = tmp_path / f"r{round_}"
        shutil.copytree(corpus_dir, corpus)
        mvs = [["-C", str(corpus), "mv", "a", "b"]]
        if round_ % 2:  # and a second rename, of the first one's result
            mvs.append(["-C", str(corpus), "mv", "b", "c"])
        forget = ["-C", str(corpus), "forget", SUBJECT]
        *moved, forgot = processes.run_together([*mvs, forget], tmp_path, env, tmp_path / "logs")
        assert all(m.code in (0, 2) for m in moved), (round_, moved)
        assert not [m for m in moved if "internal error" in m.err], (round_, moved)
        assert "Traceback" not in forgot.err, (round_, forgot)
        if forgot.code == 0:
            left = _holding(corpus, needle)
            assert left == [], (round_, left, forgot, moved)
            outcomes["erased"] += 1
        else:
            assert forgot.code == 2, (round_, forgot)
            assert "busy" in forgot.err and "rerun" in forgot.err, (round_, forgot)
            outcomes["busy"] += 1
    assert outcomes["erased"] > 0, outcomes  # the race is not won by always giving up


OTHER_KEY = "crk1_" + "another-key-" * 4


def test_forget_under_a_key_that_can_search_no_case_exits_1(
    corpus_dir: Path, tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(cli, corpus_dir, tmp_path, "old", f"refund me, I am {SUBJECT}")
    add(cli, corpus_dir, tmp_path, "older", "refund me, I am someone else")
    monkeypatch.setenv("CORPUS_REDACTION_KEY", OTHER_KEY)
    for dry in ([], ["--dry-run"]):
        done = cli("-C", corpus_dir, "forget", SUBJECT, *dry)
        assert done.code == 1, done
        lines = done.out.splitlines()
        assert lines[:2] == [
            "cannot search case old: redacted under another key; re-add it",
            "cannot search case older: redacted under another key; re-add it",
        ]
        assert lines[2].startswith("no case searched holds a pseudonym of it, but 2 cases could")
        assert "may still hold the value" in lines[2]
        assert "no case holds a pseudonym of this value" not in done.out
    assert sorted(p.name for p in (corpus_dir / "cases").iterdir()) == [".gitkeep", "old", "older"]
    as_json = cli("-C", corpus_dir, "forget", SUBJECT, "--format", "json")
    assert as_json.code == 1
    assert json.loads(as_json.out)["other_key"] == ["old", "older"]


def test_forget_that_searched_some_cases_only_exits_1_with_a_summary(
    corpus_dir: Path, tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, redaction_key: str
) -> None:
    other = tmp_path / "other"  # a corpus made under another key, whose case is copied over
    assert cli("init", other).code == 0
    add(cli, corpus_dir, tmp_path, "new", f"refund me, I am {SUBJECT}")
    add(cli, corpus_dir, tmp_path, "bystander", "refund me, I am someone else")
    monkeypatch.setenv("CORPUS_REDACTION_KEY", OTHER_KEY)
    add(cli, other, tmp_path, "old", f"refund me, I am {SUBJECT}")
    shutil.copytree(other / "cases" / "old", corpus_dir / "cases" / "old")
    monkeypatch.setenv("CORPUS_REDACTION_KEY", redaction_key)
    done = cli("-C", corpus_dir, "forget", SUBJECT)
    assert done.code == 1, done
    assert done.out.splitlines()[:3] == [
        "cannot search case old: redacted under another key; re-add it",
        "removed case new",
        "erasure incomplete, but 1 case could not be searched (redacted under another key) and "
        "may still hold the value; rerun `corpus forget` under the key they were redacted "
        "with, or remove them",
    ]
    left = sorted(p.name for p in (corpus_dir / "cases").iterdir())
    assert left == [".gitkeep", "bystander", "old"]
    monkeypatch.setenv("CORPUS_REDACTION_KEY", OTHER_KEY.replace("another", "a-third"))
    assert cli("-C", corpus_dir, "forget", SUBJECT).code == 1  # none searchable: never 0
