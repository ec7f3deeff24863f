"""`pytest --corpus DIR`: each case a test item, markers by tier and tag, xdist."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import ROOT


def _plugin() -> list[str]:
    """`-p` only when the package is not installed (installed, the entry point loads it)."""
    points = metadata.entry_points(group="pytest11")
    return (
        []
        if any(p.value == "corpus_tool.pytest_plugin" for p in points)
        else [
            "-p",
            "corpus_tool.pytest_plugin",
        ]
    )


def pytest_run(
    *args: str, cwd: Path = ROOT, wide: bool = False
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", *_plugin(), "-p", "no:cacheprovider", *args]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    if wide:  # the short summary is cut to the terminal's width
        env["COLUMNS"] = "240"
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_plugin_runs_the_example_corpus_under_xdist() -> None:
    done = pytest_run("--corpus", "examples/corpus", "-n", "2", "-q", "-rx", wide=True)
    assert done.returncode == 0, done.stdout
    assert "4 passed, 2 xfailed" in done.stdout
    assert (
        "XFAIL examples/corpus/corpus.yaml::refund-wrong-unit - ModelRequest at step 1; "
        "6 not reached; waived by W-0001 (owner payments-team, expires 2099-12-31)" in done.stdout
    )


def test_plugin_fails_the_case_no_waiver_covers(tmp_path: Path) -> None:
    from tests.replay.conftest import unwaived_corpus

    corpus = unwaived_corpus(tmp_path)
    done = pytest_run("--corpus", str(corpus), "-n", "2", "-q", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "1 failed, 4 passed, 1 xfailed" in done.stdout
    assert "corpus.yaml::refund-wrong-unit" in done.stdout
    assert "divergence ModelRequest at step 1" in done.stdout
    assert "$.request.messages[0].content" in done.stdout
    assert (
        "2 workers" in done.stdout or "[gw" in done.stdout or "bringing up nodes" in (done.stdout)
    )


def test_plugin_selects_by_case_id_and_marker() -> None:
    by_id = pytest_run("--corpus", "examples/corpus", "-k", "refund-success", "-q")
    assert "1 passed, 5 deselected" in by_id.stdout, by_id.stdout
    by_tag = pytest_run("--corpus", "examples/corpus", "-m", "tag_inventory", "-q")
    assert "1 passed, 5 deselected" in by_tag.stdout, by_tag.stdout
    by_tier = pytest_run("--corpus", "examples/corpus", "-m", "tier_fast", "--co", "-q")
    assert "6 tests collected" in by_tier.stdout, by_tier.stdout
    assert "corpus.yaml::refund-wrong-unit" in by_tier.stdout


def test_plugin_does_nothing_without_corpus(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert True\n", "utf-8")
    (tmp_path / "corpus.yaml").write_text("schema_version: 1\n", "utf-8")
    done = pytest_run("-q", cwd=tmp_path)
    assert "1 passed" in done.stdout, done.stdout + done.stderr


def test_plugin_runs_only_the_cases_corpus_case_names() -> None:
    done = pytest_run(
        "--corpus",
        "examples/corpus",
        "--corpus-case",
        "refund-success",
        "--corpus-case",
        "inventory-zero-stock",
        "-q",
    )
    assert done.returncode == 0, done.stdout
    assert "2 passed" in done.stdout and "deselected" not in done.stdout


def test_plugin_unknown_corpus_case_is_a_usage_error() -> None:
    done = pytest_run("--corpus", "examples/corpus", "--corpus-case", "no-such-case", "-q")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "no such case no-such-case" in done.stderr


def test_plugin_short_summary_names_the_divergence(tmp_path: Path) -> None:
    from tests.replay.conftest import unwaived_corpus

    unwaived_corpus(tmp_path)
    done = pytest_run("--corpus", "corpus", "-n", "2", "-q", "-rf", cwd=tmp_path, wide=True)
    assert done.returncode == 1, done.stdout
    summary = done.stdout.split("short test summary info", 1)[1]
    assert (
        "FAILED corpus/corpus.yaml::refund-wrong-unit - ModelRequest at step 1; "
        "6 not reached [strict]" in summary
    ), summary


def test_plugin_corpus_case_alone_finds_the_corpus_walking_up() -> None:
    done = pytest_run("--corpus-case", "refund-success", "-q", cwd=ROOT / "examples/corpus/cases")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_plugin_corpus_case_at_the_repository_root_finds_the_tracked_corpus(
    tmp_path: Path,
) -> None:
    """As `corpus` does at the root of a repository keeping its corpus in evals/."""
    import shutil

    from tests.conftest import git

    repo = tmp_path / "agent-repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shutil.copytree(ROOT / "examples/corpus", repo / "evals")
    git(repo, "add", "evals")
    done = pytest_run("--corpus-case", "refund-success", "-q", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_plugin_corpus_case_without_any_corpus_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert True\n", "utf-8")
    done = pytest_run("--corpus-case", "refund-success", "-q", cwd=tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "--corpus-case needs --corpus DIR: no corpus.yaml in the current directory" in (
        done.stderr
    )


COUNTING_AGENT = """
import os

from examples.refund_agent.agent import run as fine


def run(case_input, rt):
    with open(os.environ["RUN_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{case_input['user_message']}\\n")
    print("counted")
    return fine(case_input, rt)
"""


@pytest.mark.parametrize("processes", [("-n", "2"), ("-p", "no:xdist")])
def test_plugin_replays_each_case_once_in_one_process_or_under_xdist(
    tmp_path: Path, processes: tuple[str, str]
) -> None:
    from tests.replay.two_cases import two_case_corpus

    corpus = two_case_corpus(tmp_path, "pass")
    (corpus / "hostile_agent.py").write_text(COUNTING_AGENT, encoding="utf-8")
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("  mode: strict\n", "  mode: strict\n  env: [RUN_LOG]\n"))
    log = tmp_path / "runs.log"
    os.environ["RUN_LOG"] = str(log)  # inherited by pytest, passed on to the replay workers
    try:
        done = pytest_run("--corpus", str(corpus), *processes, "-q")
    finally:
        del os.environ["RUN_LOG"]
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    runs = log.read_text(encoding="utf-8").splitlines()
    assert sorted(runs) == sorted(
        ["查一下 A100 库存", "Order O-1001 arrived broken, please refund it."]
    )
    assert "counted" not in done.stdout  # the agent's prints stay in its captured output


def test_a_warm_plugin_run_parses_no_case_file_and_gives_the_same_verdicts(
    tmp_path: Path,
) -> None:
    """The plugin reads cases as `corpus check` does: through the findings cache and the
    parsed-document cache, so a second run over unchanged files parses none of them."""
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "examples" / "corpus", corpus)
    case_files = {
        hashlib.sha256(p.read_bytes()).hexdigest() for p in (corpus / "cases").glob("*/*.yaml")
    }
    log = tmp_path / "parses.log"
    os.environ["PARSE_LOG"] = str(log)
    runs, parsed = [], []
    try:
        for _ in range(2):
            log.write_text("", encoding="utf-8")
            argv = ("-p", "tests.replay.parse_log", "--corpus", str(corpus), "-q", "-rx")
            runs.append(pytest_run(*argv, "-p", "no:xdist", wide=True))
            parsed.append(case_files.intersection(log.read_text(encoding="utf-8").split()))
    finally:
        del os.environ["PARSE_LOG"]
    cold, warm = runs
    assert cold.returncode == warm.returncode == 0, cold.stdout + cold.stderr
    assert "4 passed, 2 xfailed" in warm.stdout, warm.stdout
    summary = [line for line in cold.stdout.splitlines() if line.startswith("XFAIL")]
    assert summary == [line for line in warm.stdout.splitlines() if line.startswith("XFAIL")]
    assert len(parsed[0]) == len(case_files), parsed  # the log sees the cold run's parses
    assert parsed[1] == set()


def test_plugin_walks_neither_the_cases_nor_the_waivers_directory(tmp_path: Path) -> None:
    """corpus.yaml's collector makes the case items: a Python file inside cases/ or waivers/
    is never imported or collected (a conftest.py there would run code), while a test beside
    them in the corpus directory still is."""
    from tests.replay.conftest import copy_corpus

    corpus = copy_corpus(tmp_path)
    ran = tmp_path / "planted-conftest-ran"
    for where in (corpus / "cases" / "refund-success", corpus / "waivers"):
        (where / "conftest.py").write_text(
            f"open({str(ran)!r}, 'a').write({str(where)!r} + '\\n')\n", "utf-8"
        )
        (where / "test_planted.py").write_text("def test_planted():\n    assert False\n", "utf-8")
    (corpus / "test_beside.py").write_text("def test_beside():\n    assert True\n", "utf-8")
    done = pytest_run("--corpus", str(corpus), str(corpus), "-q", "-rA", cwd=tmp_path, wide=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 passed, 2 xfailed" in done.stdout, done.stdout
    assert "test_beside.py::test_beside" in done.stdout
    assert "test_planted" not in done.stdout
    assert not ran.exists(), ran.read_text("utf-8")
