"""Case writes under concurrency and interruption: no reviewed file is ever lost.

Parallel `add --force` of one case, and a kill right after every single step of a replacing
write (fault injection through CORPUS_KILL_AFTER_STEP, not timing luck): each interrupted state
keeps a complete copy of the reviewed case, `validate` reports what it finds, and the next
write finishes or undoes the interrupted one. Links and odd files in a case are never followed.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from corpus_tool.io.locks import exclusive
from tests import processes
from tests.conftest import EXAMPLES, Cli

INCIDENT = EXAMPLES / "incidents" / "refund-success.json"
OTHER = EXAMPLES / "incidents" / "inventory-zero-stock.json"
CASE = "same"
REVIEW = "# reviewed by alice: the refund must be in cents\n"
NOTES = "what support told the customer\n"
SCREENSHOT = "not really a png\n"


def _review(corpus: Path) -> None:
    """What a reviewer adds after `corpus add`: an edited expected.yaml and files of their own."""
    case = corpus / "cases" / CASE
    expected = case / "expected.yaml"
    expected.write_text(expected.read_text(encoding="utf-8") + REVIEW, encoding="utf-8")
    (case / "notes.md").write_text(NOTES, encoding="utf-8")
    (case / "attachments").mkdir()
    (case / "attachments" / "screenshot.txt").write_text(SCREENSHOT, encoding="utf-8")


def _intact(case: Path) -> bool:
    """The reviewed case, whole: its review, the reviewer's files and a trace of this case."""
    try:
        trace = yaml.safe_load((case / "trace.yaml").read_text(encoding="utf-8"))
        return (
            (case / "expected.yaml").read_text(encoding="utf-8").endswith(REVIEW)
            and (case / "notes.md").read_text(encoding="utf-8") == NOTES
            and (case / "attachments/screenshot.txt").read_text(encoding="utf-8") == SCREENSHOT
            and trace["id"] == CASE
            and len(trace["events"]) > 0
        )
    except (OSError, yaml.YAMLError, TypeError, KeyError):
        return False


def _hidden(corpus: Path) -> list[str]:
    return sorted(
        p.name
        for p in (corpus / "cases").iterdir()
        if p.name != ".gitkeep" and p.name.startswith(".")
    )


@pytest.fixture
def reviewed(corpus_dir: Path, cli: Cli) -> Path:
    """A corpus whose case `same` was added and then reviewed."""
    assert cli("-C", corpus_dir, "add", INCIDENT, "--id", CASE).code == 0
    _review(corpus_dir)
    return corpus_dir


def _env(redaction_key: str) -> dict[str, str]:
    return {"CORPUS_REDACTION_KEY": redaction_key}


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


def test_parallel_force_adds_leave_one_complete_reviewed_case(
    reviewed: Path, tmp_path: Path, redaction_key: str, cli: Cli
) -> None:
    argv = ["-C", str(reviewed), "add", str(INCIDENT), "--id", CASE, "--force"]
    outcomes = {"added": 0, "busy": 0}
    for round_ in range(40):
        ran = processes.run_together([argv] * 8, tmp_path, _env(redaction_key), tmp_path / "logs")
        for each in ran:
            if each.code == 0:
                outcomes["added"] += 1
                continue
            assert each.code == 2, (round_, each)
            assert "busy: another corpus command is writing same" in _one_line(each.err)
            outcomes["busy"] += 1
        listing = sorted(str(p.relative_to(reviewed)) for p in (reviewed / "cases").rglob("*"))
        assert _intact(reviewed / "cases" / CASE), (round_, listing, ran)
        assert _hidden(reviewed) == [], (round_, listing, ran)
    assert outcomes["added"] >= 40  # at least one run of every round got through
    assert cli("-C", reviewed, "validate").code == 0


def test_parallel_force_adds_as_real_processes(
    reviewed: Path, tmp_path: Path, redaction_key: str
) -> None:
    """The console script itself, eight interpreters at once (one round: start-up is slow)."""
    import subprocess
    import sys

    env = {**os.environ, **_env(redaction_key)}
    argv = [sys.executable, "-m", "corpus_tool", "-C", str(reviewed), "add", str(INCIDENT)]
    children = [
        subprocess.Popen(
            [*argv, "--id", CASE, "--force"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    for child in children:
        _out, err = child.communicate(timeout=120)
        assert child.returncode == 0 or (child.returncode == 2 and "busy" in _one_line(err)), err
    assert _intact(reviewed / "cases" / CASE) and _hidden(reviewed) == []


NEXT = ("the same add", "an add of another case", "a forget")


def test_kill_after_every_step_of_a_replacing_add(
    reviewed: Path, tmp_path: Path, redaction_key: str, cli: Cli
) -> None:
    """After each kill one of three next commands runs, in turn: any write recovers."""
    step = 0
    while True:
        step += 1
        corpus = tmp_path / f"k{step}"
        shutil.copytree(reviewed, corpus, symlinks=True)
        argv = ["-C", str(corpus), "add", str(INCIDENT), "--id", CASE, "--force"]
        ran = processes.run(argv, tmp_path, _env(redaction_key), tmp_path / "logs", step)
        if ran.code == 0:
            break
        assert ran.code == processes.KILLED, ran
        _check_interrupted(corpus, cli)
        _next_command(NEXT[step % len(NEXT)], corpus, cli)
        assert _intact(corpus / "cases" / CASE), (step, ran.err)
        assert _hidden(corpus) == [], (step, ran.err)
        assert cli("-C", corpus, "validate").code == 0, step
    assert step > 8  # lock, copy, write, the renames and removals: each was a kill point


def _check_interrupted(corpus: Path, cli: Cli) -> None:
    """Right after the kill: a whole reviewed copy exists, and validate says what is left."""
    cases = corpus / "cases"
    copies = [cases / CASE, cases / f".{CASE}.new", cases / f".{CASE}.old"]
    assert any(_intact(where) for where in copies)
    result = cli("-C", corpus, "validate", "--format", "json")
    findings = json.loads(result.out)["findings"]
    if _hidden(corpus) or not (cases / CASE).is_dir():
        assert result.code == 1
        assert {f["rule"] for f in findings} >= {"case.interrupted"}
    for finding in findings:
        assert "rename the directory" not in finding["message"]


def _next_command(then: str, corpus: Path, cli: Cli) -> None:
    if then == "the same add":
        result = cli("-C", corpus, "add", INCIDENT, "--id", CASE, "--force")
    elif then == "an add of another case":
        result = cli("-C", corpus, "add", OTHER, "--id", "other")
    else:
        result = cli("-C", corpus, "forget", "nobody@example.com")
    assert result.code == 0, result.err


def test_kill_after_every_step_of_a_first_add_leaves_nothing_behind(
    corpus_dir: Path, tmp_path: Path, redaction_key: str, cli: Cli
) -> None:
    step = 0
    while True:
        step += 1
        corpus = tmp_path / f"k{step}"
        shutil.copytree(corpus_dir, corpus)
        argv = ["-C", str(corpus), "add", str(INCIDENT), "--id", CASE]
        ran = processes.run(argv, tmp_path, _env(redaction_key), tmp_path / "logs", step)
        if ran.code == 0:
            break
        assert ran.code == processes.KILLED
        result = cli("-C", corpus, "add", INCIDENT, "--id", CASE, "--force")
        assert result.code == 0, result.err
        assert _hidden(corpus) == []
        assert cli("-C", corpus, "validate").code == 0
    assert step > 3


def test_a_killed_adds_partial_copy_is_reported_then_removed(
    reviewed: Path, tmp_path: Path, redaction_key: str, cli: Cli
) -> None:
    partial = reviewed / "cases" / f".{CASE}.x1y2z3.tmp"  # what `kill -9` mid-copy leaves
    partial.mkdir()
    (partial / "trace.yaml").write_bytes(b"schema_version: 1\nevents:\n" + b"- {seq: 1}\n" * 50_000)
    result = cli("-C", reviewed, "validate")
    assert result.code == 1
    assert (
        f"[case.interrupted] a partial copy left by an interrupted write of case {CASE}"
        in result.out
    )
    assert "rename the directory" not in result.out
    hooked = cli("validate", partial / "trace.yaml")  # as an old files-passing hook would
    assert hooked.code == 1 and "[case.interrupted]" in hooked.out
    assert "rename the directory" not in hooked.out
    assert cli("-C", reviewed, "add", OTHER, "--id", "other").code == 0
    assert not partial.exists() and _intact(reviewed / "cases" / CASE)


def test_a_case_being_written_is_busy(reviewed: Path, cli: Cli) -> None:
    with exclusive(reviewed / "cases" / f".{CASE}.lock", "held by this test"):
        result = cli("-C", reviewed, "add", INCIDENT, "--id", CASE, "--force")
        assert cli("-C", reviewed, "validate").code == 0  # a write in progress is no leftover
    assert result.code == 2
    assert f"busy: another corpus command is writing {CASE}" in _one_line(result.err)
    assert _intact(reviewed / "cases" / CASE)


def test_force_copies_links_as_links_never_their_targets(
    reviewed: Path, tmp_path: Path, cli: Cli
) -> None:
    secrets = tmp_path / "home" / ".ssh"
    secrets.mkdir(parents=True)
    (secrets / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n", encoding="utf-8")
    case = reviewed / "cases" / CASE
    (case / "keys").symlink_to(secrets)
    (case / "libs").symlink_to("/usr/lib")
    assert cli("-C", reviewed, "add", INCIDENT, "--id", CASE, "--force").code == 0
    assert (case / "keys").is_symlink() and os.readlink(case / "keys") == str(secrets)
    assert (case / "libs").is_symlink() and os.readlink(case / "libs") == "/usr/lib"
    assert _intact(case)


def test_force_replaces_a_linked_trace_instead_of_writing_through_it(
    reviewed: Path, tmp_path: Path, cli: Cli
) -> None:
    outside = tmp_path / "bashrc"
    outside.write_text("export PATH=/usr/bin\n", encoding="utf-8")
    trace = reviewed / "cases" / CASE / "trace.yaml"
    trace.unlink()
    trace.symlink_to(outside)
    assert cli("-C", reviewed, "add", INCIDENT, "--id", CASE, "--force").code == 0
    assert outside.read_text(encoding="utf-8") == "export PATH=/usr/bin\n"
    assert not trace.is_symlink() and _intact(trace.parent)


def test_force_refuses_a_pipe_in_the_case_and_changes_nothing(reviewed: Path, cli: Cli) -> None:
    fifo = reviewed / "cases" / CASE / "attachments" / "pipe"
    os.mkfifo(fifo)  # copying it would block until a writer came
    result = cli("-C", reviewed, "add", INCIDENT, "--id", CASE, "--force")
    assert result.code == 2
    assert "is not a file, directory or link" in _one_line(result.err)
    assert _intact(reviewed / "cases" / CASE) and _hidden(reviewed) == []


def test_force_refuses_a_case_directory_that_is_a_link(
    reviewed: Path, tmp_path: Path, cli: Cli
) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.move(reviewed / "cases" / CASE, elsewhere)
    (reviewed / "cases" / CASE).symlink_to(elsewhere)
    result = cli("-C", reviewed, "add", INCIDENT, "--id", CASE, "--force")
    assert result.code == 2
    assert "is a symbolic link" in _one_line(result.err)
    assert _intact(elsewhere)
