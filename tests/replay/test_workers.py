"""Replay workers: same report with any number of them, one import per worker, a clean
environment, the fallback where namespaces are missing, and verdicts that cannot be faked."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_tool.grade import grade_checks
from corpus_tool.replay.cases import CaseResult
from corpus_tool.replay.runner import RunOptions, run_cases
from corpus_tool.replay.workers.launch import launch_for
from corpus_tool.replay.workers.pool import Pool
from corpus_tool.store.corpus import open_corpus
from tests.conftest import TEST_KEY
from tests.replay.conftest import CORPUS
from tests.replay.two_cases import FINE, HANG_GUARD_S, HOSTILE, corpus_check, two_case_corpus


def corpus_cli(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corpus_tool", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env={**os.environ, **(env or {})},
    )


def without_durations(document: str) -> object:
    doc = json.loads(document)
    for case in doc["cases"]:
        case.pop("duration_ms")
    return doc


def test_two_workers_give_the_report_of_one(tmp_path: Path) -> None:
    one = corpus_cli("-C", CORPUS, "check", "-n", "1")
    two = corpus_cli("-C", CORPUS, "check", "-n", "2")
    assert one.returncode == two.returncode == 0
    assert two.stdout == one.stdout  # byte for byte
    assert "6 case(s): 4 passed, 0 failed" in one.stdout
    as_json = [corpus_cli("-C", CORPUS, "check", "-n", n, "--format", "json") for n in "12"]
    assert without_durations(as_json[0].stdout) == without_durations(as_json[1].stdout)


def test_verdicts_come_in_case_order_whatever_order_workers_finish_in(tmp_path: Path) -> None:
    corpus = two_case_corpus(tmp_path, "time.sleep(1)")  # the first case finishes last
    done = corpus_check(corpus, tmp_path, "-n", "2")
    lines = [line.split()[:2] for line in done.stdout.splitlines() if "  [" in line]
    assert lines == [["PASS", HOSTILE], ["PASS", FINE]], done.stdout


def test_a_worker_imports_the_agent_once_and_runs_many_cases(tmp_path: Path) -> None:
    prelude = "import os\nprint('imported in', os.getpid())"
    corpus = two_case_corpus(tmp_path, "print('case in', os.getpid())", prelude)
    (corpus / "hostile_agent.py").write_text(
        (corpus / "hostile_agent.py")
        .read_text(encoding="utf-8")
        .replace(
            "return fine(case_input, rt)",
            "print('case in', os.getpid())\n    return fine(case_input, rt)",
        ),
        encoding="utf-8",
    )
    corpus_check(corpus, tmp_path, "-n", "1")
    cases = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["cases"]
    pids = {re.findall(r"case in (\d+)", c["output"])[-1] for c in cases}
    assert len(pids) == 1, cases  # one worker process served both cases
    assert all("imported in" not in c["output"] for c in cases)  # import ran once, before them


def test_slow_cases_are_shared_between_two_workers_not_queued_on_one(tmp_path: Path) -> None:
    """Runs are sent ahead in batches only while they are fast: 12 cases of 0.3 s each on
    two workers end about even, not 8 on one worker while the other sits idle at the end."""
    corpus = two_case_corpus(tmp_path, "pass", "import uuid\nWORKER = uuid.uuid4().hex")
    agent = corpus / "hostile_agent.py"
    agent.write_text(
        agent.read_text(encoding="utf-8").replace(
            "return fine(case_input, rt)",
            "time.sleep(0.3)\n    print('case in', WORKER)\n    return fine(case_input, rt)",
        ),
        encoding="utf-8",
    )
    source = corpus / "cases" / FINE
    for n in range(10):
        copy = corpus / "cases" / f"copy-{n:02d}"
        shutil.copytree(source, copy)
        for name in ("trace.yaml", "expected.yaml"):
            text = (copy / name).read_text(encoding="utf-8")
            (copy / name).write_text(text.replace(f"id: {FINE}\n", f"id: {copy.name}\n"))
    done = corpus_check(corpus, tmp_path, "-n", "2")
    cases = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["cases"]
    assert len(cases) == 12 and {c["verdict"] for c in cases} <= {"passed", "failed"}, done.stderr
    workers = [re.findall(r"case in (\w+)", c["output"])[-1] for c in cases]  # pid namespaces
    counts = sorted(workers.count(w) for w in set(workers))  # hide the pids
    assert len(counts) == 2 and counts[1] - counts[0] <= 2, counts


def test_the_case_after_a_broken_worker_runs_in_a_fresh_one(tmp_path: Path) -> None:
    corpus = two_case_corpus(tmp_path, "print('case in', os.getpid())\nos.fork()")
    corpus_check(corpus, tmp_path)
    cases = {c["case"]: c for c in _results(tmp_path)}
    assert cases[HOSTILE]["verdict"] == "error" and cases[FINE]["verdict"] == "passed"
    assert "it forked the worker" in cases[HOSTILE]["error"]


def _results(tmp_path: Path) -> list[dict[str, object]]:
    return json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["cases"]  # type: ignore[no-any-return]


def test_the_agent_sees_only_the_environment_the_corpus_passes(tmp_path: Path) -> None:
    body = "print(sorted(os.environ))\nprint('wanted', os.environ.get('AGENT_SETTING'))"
    corpus = two_case_corpus(tmp_path, body)
    config = corpus / "corpus.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "  mode: strict\n", "  mode: strict\n  env: [AGENT_SETTING]\n"
        ),
        encoding="utf-8",
    )
    env = {"AGENT_SETTING": "on", "UNRELATED_SECRET": "s3cret", "CORPUS_REDACTION_KEY": TEST_KEY}
    argv = ["-C", corpus, "check", "--results", tmp_path / "results.json"]
    done = corpus_cli(*argv, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    output = _results(tmp_path)[0]["output"]
    assert "wanted on" in output
    assert "UNRELATED_SECRET" not in output and "CORPUS_REDACTION_KEY" not in output
    assert "'HOME'" in output and "'PATH'" in output


def test_passing_the_redaction_key_to_the_agent_is_refused(tmp_path: Path) -> None:
    corpus = two_case_corpus(tmp_path, "pass")
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace("  mode: strict\n", "  mode: strict\n  env: [CORPUS_REDACTION_KEY]\n"),
        encoding="utf-8",
    )
    done = corpus_cli("-C", corpus, "replay")
    assert done.returncode == 2
    assert "replay.env passes CORPUS_REDACTION_KEY, the redaction key" in done.stderr
    assert done.stderr.count("\n") == 1


def test_an_agent_that_exits_while_imported_is_a_one_line_input_error(tmp_path: Path) -> None:
    corpus = two_case_corpus(tmp_path, "pass", prelude="import os\nos._exit(7)")
    done = corpus_cli("-C", corpus, "check")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "importing it in a replay worker failed: the worker exited with status 7" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_check_reports_an_agent_that_cannot_import_only_when_a_case_needs_it(
    tmp_path: Path,
) -> None:
    """`check` starts its workers before it reads the corpus; with no case to replay (here no
    case of the tier asked for) a failing import is still no error, as without the head start."""
    corpus = two_case_corpus(tmp_path, "pass", prelude="import os\nos._exit(7)")
    done = corpus_check(corpus, tmp_path, "--tier", "full")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no case was replayed" in done.stdout and done.stderr == ""


@pytest.mark.parametrize("args", [["check"], ["replay", "--tier", "full"]])
def test_a_run_without_verdicts_is_not_a_pass(tmp_path: Path, args: list[str]) -> None:
    corpus = two_case_corpus(tmp_path, "pass")
    if args == ["check"]:
        for case in (corpus / "cases").iterdir():
            shutil.rmtree(case)
    done = corpus_cli("-C", corpus, *args)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "0 case(s)" in done.stdout and "no case was replayed" in done.stdout


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("-n", "0", "give a number of workers from 1 to 256, or auto"),
        ("-n", "many", "give a number of workers from 1 to 256, or auto"),
        ("--timeout", "0", "give a number of seconds above 0"),
        ("--timeout", "nan", "give a number of seconds above 0"),
    ],
)
def test_bad_workers_or_timeout_is_a_usage_error(option: str, value: str, message: str) -> None:
    done = corpus_cli("-C", CORPUS, "check", option, value)
    assert done.returncode == 2 and message in done.stderr


def test_n_auto_runs_the_corpus() -> None:
    done = corpus_cli("-C", CORPUS, "replay", "refund-success", "-n", "auto")
    assert done.returncode == 0 and "1 case(s): 1 passed" in done.stdout


# -- isolation: what this machine's kernel gives, and the fallback where it gives nothing -------


def _unshare_works() -> bool:
    """Ground truth from util-linux, not from our code: may we make user+net namespaces?"""
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


def _in_pool(corpus_dir: Path, namespaces: bool) -> tuple[list[CaseResult], str]:
    corpus = open_corpus(corpus_dir, corpus_dir)
    launch = launch_for(corpus, 2)
    setup = dataclasses.replace(launch.setup, namespaces=namespaces)
    with Pool(dataclasses.replace(launch, setup=setup)) as pool:
        results = list(
            run_cases(corpus, corpus.case_ids(), RunOptions(), grader=grade_checks, pool=pool)
        )
        return results, pool.isolation


def test_workers_use_network_namespaces_where_the_kernel_allows(tmp_path: Path) -> None:
    corpus = two_case_corpus(tmp_path, "pass")
    results, isolation = _in_pool(corpus, namespaces=True)
    assert [r.verdict for r in results] == ["passed", "passed"]
    if _unshare_works():
        assert isolation.startswith("network namespace without interfaces, corpus read-only")
    else:
        assert isolation.startswith("no network namespace")


@pytest.mark.parametrize(
    ("body", "refused"),
    [
        ("subprocess.run(['true'])", "subprocess.Popen"),
        ("import ctypes\nctypes.CDLL(None)", "ctypes.dlopen"),
        ("(CORPUS / 'cases' / 'x.txt').write_text('x')", "writing cases/x.txt"),
    ],
)
def test_without_namespaces_the_fence_refuses_processes_ctypes_and_corpus_writes(
    tmp_path: Path, body: str, refused: str
) -> None:
    corpus = two_case_corpus(tmp_path, body)
    results, isolation = _in_pool(corpus, namespaces=False)
    assert isolation.startswith("no network namespace")
    hostile, fine = results
    assert hostile.verdict == "error" and refused in (hostile.error or ""), hostile
    assert fine.verdict == "passed"
    assert not (corpus / "cases" / "x.txt").exists()


def test_a_per_case_limit_shorter_than_a_workers_start_still_replays_every_case(
    tmp_path: Path,
) -> None:
    """`--timeout` limits each case's run; a worker whose start (its agent's import here, a
    loaded machine elsewhere) takes longer than that is not an agent hanging at import."""
    corpus = two_case_corpus(tmp_path, "return None", prelude="import time; time.sleep(3)")
    done = corpus_check(corpus, tmp_path)  # --timeout 2
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout, done.stdout


def test_an_agent_hanging_at_import_is_one_line_naming_the_start_limit(tmp_path: Path) -> None:
    corpus = two_case_corpus(tmp_path, "return None", prelude="import time; time.sleep(300)")
    done = corpus_check(corpus, tmp_path)  # --timeout 2: the start still gets 10 s
    assert done.returncode == 2, done.stdout + done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and "did not start within 10 s" in line, line
    assert "stuck at hostile_agent.py:1 in <module>" in line, line


def test_a_worker_runs_the_grading_process_s_own_corpus_tool(tmp_path: Path) -> None:
    """Another copy of the package first on the worker's path (PYTHONPATH passed by replay.env:
    an older release, another checkout's editable install) is not the one the worker runs."""
    decoy = tmp_path / "decoy" / "corpus_tool"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise SystemExit('the decoy corpus_tool was imported')\n")
    corpus_dir = two_case_corpus(tmp_path, "pass")
    corpus = open_corpus(corpus_dir, corpus_dir)
    launch = launch_for(corpus, 5)
    env = {**launch.env, "PYTHONPATH": str(decoy.parent)}
    with Pool(dataclasses.replace(launch, env=env)) as pool:
        results = list(
            run_cases(corpus, corpus.case_ids(), RunOptions(), grader=grade_checks, pool=pool)
        )
    assert [r.verdict for r in results] == ["passed", "passed"], results
