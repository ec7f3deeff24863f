"""`corpus mv OLD NEW`: a case renamed everywhere, or refused with nothing changed."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, Cli

WAIVER = """\
# reviewed in PR 12: the notification lands next release
schema_version: 1
id: W-0001
case: old-case   # the case this excuses
checks: [tools.required]
reason: the operator notification ships in 2.6
owner: payments-team
expires: "2099-12-31"
created: "2099-12-01"
"""


@pytest.fixture()
def corpus(corpus_dir: Path, cli: Cli) -> Path:
    """A corpus with case `old-case` (a reviewed comment in expected.yaml) and its waiver."""
    incident = EXAMPLES / "incidents/refund-success.json"
    assert cli("-C", corpus_dir, "add", incident, "--id", "old-case").code == 0
    assert cli("-C", corpus_dir, "add", incident, "--id", "other").code == 0
    expected = corpus_dir / "cases/old-case/expected.yaml"
    text = expected.read_text(encoding="utf-8").replace(
        "owner: unassigned", "owner: payments-team  # decided in review"
    )
    expected.write_text(text, encoding="utf-8")
    (corpus_dir / "waivers/W-0001.yaml").write_text(WAIVER, encoding="utf-8")
    assert cli("-C", corpus_dir, "validate").code == 0
    return corpus_dir


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    }


def _renamed(before: dict[str, bytes]) -> dict[str, bytes]:
    """What a rename must leave: the case under its new name, the id and waiver line changed."""
    after = {}
    for name, data in before.items():
        if name.startswith("cases/old-case/"):
            name = name.replace("cases/old-case/", "cases/new-case/")
            data = data.replace(b"\nid: old-case\n", b"\nid: new-case\n")
        elif name == "waivers/W-0001.yaml":
            data = data.replace(b"case: old-case   #", b"case: new-case   #")
        after[name] = data
    return after


def test_mv_renames_directory_ids_and_waivers_keeping_every_other_byte(
    corpus: Path, cli: Cli
) -> None:
    before = _snapshot(corpus)
    code, out, err = cli("-C", corpus, "mv", "old-case", "new-case")
    assert code == 0, err
    assert "moved case old-case -> new-case" in out
    assert "waiver waivers/W-0001.yaml now names new-case" in out
    assert _snapshot(corpus) == _renamed(before)
    expected = (corpus / "cases/new-case/expected.yaml").read_text(encoding="utf-8")
    assert "owner: payments-team  # decided in review" in expected, "comments survive"
    assert yaml.safe_load(expected)["id"] == "new-case"
    assert cli("-C", corpus, "validate").code == 0


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("old-case", "other", "case 'other' exists at"),
        ("old-case", "../escape", "invalid case id '../escape'"),
        ("old-case", "New-Case", "invalid case id 'New-Case'"),
        ("old-case", "", "invalid case id '(empty)'"),
        ("missing", "new-case", "no case 'missing' at"),
        ("old-case", "old-case", "already has that id"),
    ],
)
def test_mv_refusal_is_one_line_and_changes_nothing(
    corpus: Path, cli: Cli, old: str, new: str, says: str
) -> None:
    before = _snapshot(corpus)
    code, _, err = cli("-C", corpus, "mv", old, new)
    assert code == 2
    assert says in err and len(err.strip().splitlines()) == 1
    assert _snapshot(corpus) == before
    assert sorted(p.name for p in (corpus / "cases").iterdir()) == [".gitkeep", "old-case", "other"]


def test_mv_case_whose_id_disagrees_with_its_directory_is_refused(corpus: Path, cli: Cli) -> None:
    trace = corpus / "cases/old-case/trace.yaml"
    trace.write_text(trace.read_text().replace("id: old-case", "id: stray"), encoding="utf-8")
    before = _snapshot(corpus)
    code, _, err = cli("-C", corpus, "mv", "old-case", "new-case")
    assert code == 2 and "`id` is 'stray', not 'old-case'" in err
    assert _snapshot(corpus) == before


class Killed(BaseException):
    """Stands for the process dying at this point."""


class Faults:
    """Counts the file-system steps of a run (renames, replaces, tree copies and removals) and
    kills the run just before step `at`."""

    STEPS: tuple[tuple[Any, str], ...] = (
        (os, "rename"),
        (os, "replace"),
        (shutil, "copytree"),
        (shutil, "rmtree"),
    )

    def __init__(self, monkeypatch: pytest.MonkeyPatch, at: int | None = None):
        self.steps = 0
        for owner, name in self.STEPS:
            monkeypatch.setattr(owner, name, self._wrapped(getattr(owner, name), at))

    def _wrapped(self, real: Callable[..., Any], at: int | None) -> Callable[..., Any]:
        def step(*args: Any, **kwargs: Any) -> Any:
            self.steps += 1
            if self.steps == at:
                raise Killed
            return real(*args, **kwargs)

        return step


def test_mv_killed_at_any_step_is_finished_by_running_it_again(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from corpus_tool.cli import main

    incident = EXAMPLES / "incidents/refund-success.json"

    def fresh(name: str) -> Path:
        root = tmp_path / name
        assert cli("init", root).code == 0
        assert cli("-C", root, "add", incident, "--id", "old-case").code == 0
        (root / "waivers/W-0001.yaml").write_text(WAIVER, "utf-8")
        return root

    counting = fresh("count")
    want = _renamed(_snapshot(counting))
    with monkeypatch.context() as patched:
        faults = Faults(patched)
        assert main(["-C", str(counting), "mv", "old-case", "new-case"]) == 0
    assert _snapshot(counting) == want
    assert faults.steps >= 4, "copy, rename into place, waiver, removal at least"
    for at in range(1, faults.steps + 1):
        root = fresh(f"kill-{at}")
        with monkeypatch.context() as patched, pytest.raises(Killed):
            Faults(patched, at)
            main(["-C", str(root), "mv", "old-case", "new-case"])
        # wherever it died, the corpus is valid, and the same command finishes the rename
        assert cli("-C", root, "validate").code == 0, f"killed at step {at}"
        code, _, err = cli("-C", root, "mv", "old-case", "new-case")
        assert (code, _snapshot(root)) == (0, want), f"killed at step {at}: {err}"


def test_mv_of_a_case_removed_while_it_waits_for_the_lock_says_no_case(
    corpus: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `forget` that removes the case between mv's first look and its lock (the interleaving
    a race with forget produces, reached on purpose): mv plans under the lock, so it finds no
    case and says so in one line, instead of an internal error halfway through the copy."""
    from corpus_tool.store import staging

    taken = staging.locked

    def locked_after_a_forget(final: Path, *args: Any, **kwargs: Any) -> Any:
        if final.name == "old-case" and final.is_dir():
            shutil.rmtree(final)  # what forget does under the lock mv then gets
        return taken(final, *args, **kwargs)

    monkeypatch.setattr(staging, "locked", locked_after_a_forget)
    code, _, err = cli("-C", corpus, "mv", "old-case", "new-case")
    assert code == 2, err
    assert "internal error" not in err and "no case 'old-case'" in err
    assert err.count("\n") == 1 and not (corpus / "cases/new-case").exists()
