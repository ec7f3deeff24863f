"""`corpus add FILE... DIR`: many incidents in one run, all checked before any is written."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests import processes
from tests.conftest import EXAMPLES, Cli

GOOD = ["refund-success", "check-refund-timeout-retry", "inventory-zero-stock", "refund-wrong-unit"]


def _incidents(tmp_path: Path) -> tuple[Path, Path, Path]:
    """a.json, b.json and a directory holding two more (and a hidden file to skip)."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    shutil.copy(EXAMPLES / f"incidents/{GOOD[0]}.json", a)
    shutil.copy(EXAMPLES / f"incidents/{GOOD[1]}.json", b)
    folder = tmp_path / "more"
    (folder / "nested").mkdir(parents=True)
    shutil.copy(EXAMPLES / f"incidents/{GOOD[2]}.json", folder / "c.json")
    shutil.copy(EXAMPLES / f"incidents/{GOOD[3]}.json", folder / "nested/d.json")
    (folder / ".DS_Store").write_text("not an incident")
    return a, b, folder


def _trace_ids(names: list[str]) -> set[str]:
    return {json.loads((EXAMPLES / f"incidents/{n}.json").read_text())["traceId"] for n in names}


def _cases(corpus: Path) -> list[str]:
    return sorted(p.name for p in (corpus / "cases").iterdir() if p.is_dir())


def test_add_batch_files_and_directory_in_one_process(tmp_path: Path, corpus_dir: Path) -> None:
    a, b, folder = _incidents(tmp_path)
    env = {"CORPUS_REDACTION_KEY": "k" * 32, "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-m", "corpus_tool", "-C", str(corpus_dir), "add", str(a), str(b),
         str(folder), "--json"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert [Path(i["path"]).name for i in doc["incidents"]] == [
        "a.json",
        "b.json",
        "c.json",
        "d.json",
    ]
    assert doc["added"] == 4 and doc["refused"] == 0
    traces = [
        yaml.safe_load((corpus_dir / "cases" / c / "trace.yaml").read_text())
        for c in _cases(corpus_dir)
    ]
    written = {t["source"]["trace_id"] for t in traces}
    assert written == _trace_ids(GOOD)


def test_add_batch_bad_file_is_named_and_nothing_written(
    tmp_path: Path, corpus_dir: Path, cli: Cli
) -> None:
    a, b, folder = _incidents(tmp_path)
    (folder / "broken.json").write_text("{not json")
    result = cli("-C", corpus_dir, "add", a, b, folder)
    assert result.code == 2
    assert "broken.json" in result.err and "nothing written" in result.err
    assert _cases(corpus_dir) == []


def test_add_batch_keep_going_gives_each_file_its_verdict(
    tmp_path: Path, corpus_dir: Path, cli: Cli
) -> None:
    a, b, folder = _incidents(tmp_path)
    (folder / "broken.json").write_text("{not json")
    result = cli("-C", corpus_dir, "add", a, b, folder, "--keep-going", "--json")
    assert result.code == 2
    doc = json.loads(result.out)
    verdicts = {Path(i["path"]).name: (i["written"], bool(i["error"])) for i in doc["incidents"]}
    assert verdicts["broken.json"] == (False, True)
    assert all(v == (True, False) for k, v in verdicts.items() if k != "broken.json")
    assert len(_cases(corpus_dir)) == 4


def test_add_batch_two_files_one_case_id_is_refused(
    tmp_path: Path, corpus_dir: Path, cli: Cli
) -> None:
    a, _, _ = _incidents(tmp_path)
    twin = tmp_path / "twin.json"
    shutil.copy(a, twin)
    result = cli("-C", corpus_dir, "add", a, twin)
    assert result.code == 2 and "twin.json" in result.err
    assert _cases(corpus_dir) == []


def _whole_cases(corpus: Path) -> set[str]:
    """The trace ids of the cases present, each case checked whole: both files parse, and the
    trace is one of the incidents given. Hidden directories are a write's leftovers, which the
    next write of that case recovers."""
    ids = set()
    for case in (c for c in _cases(corpus) if not c.startswith(".")):
        trace = yaml.safe_load((corpus / "cases" / case / "trace.yaml").read_text("utf-8"))
        expected = yaml.safe_load((corpus / "cases" / case / "expected.yaml").read_text("utf-8"))
        assert trace["id"] == expected["id"] == case and trace["events"], case
        ids.add(trace["source"]["trace_id"])
    return ids


def test_add_batch_killed_after_any_step_then_run_again_adds_every_incident(
    tmp_path: Path, corpus_dir: Path, redaction_key: str, cli: Cli
) -> None:
    """A batch killed right after each of its steps in turn (CORPUS_KILL_AFTER_STEP) leaves
    whole cases or none; the same command run again, with --force for the cases already
    there, ends with every incident a case and a corpus that validates."""
    a, b, folder = _incidents(tmp_path)
    everything = _trace_ids(GOOD)
    step = 0
    while True:
        step += 1
        corpus = tmp_path / f"k{step}"
        shutil.copytree(corpus_dir, corpus)
        argv = ["-C", str(corpus), "add", str(a), str(b), str(folder)]
        env = {"CORPUS_REDACTION_KEY": redaction_key}
        ran = processes.run(argv, tmp_path, env, tmp_path / "logs", step)
        if ran.code == 0:
            break
        assert ran.code == processes.KILLED, (step, ran)
        assert _whole_cases(corpus) <= everything, step
        again = cli("-C", corpus, "add", a, b, folder, "--force")
        assert again.code == 0, (step, again.err)
        assert _whole_cases(corpus) == everything, step
        left = [p.name for p in (corpus / "cases").iterdir() if p.name.startswith(".")]
        assert left in ([], [".gitkeep"]), (step, left)
        assert cli("-C", corpus, "validate").code == 0, step
    assert _whole_cases(corpus) == everything
    assert step > len(GOOD)  # at least one kill point per case written
