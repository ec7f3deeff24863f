"""The worker's sandbox against agents that try to get out, each a real `corpus check` with real
workers: undoing the read-only bind (from Python and from a child shell), writing a linked
worktree's git directory, reading the redaction key file, leaving daemons behind; and the
scratch directories of idle workers when the grading process is killed."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from corpus_tool.grade import grade_checks
from corpus_tool.replay.runner import RunOptions, run_cases
from corpus_tool.replay.workers import lockdown
from corpus_tool.replay.workers.launch import launch_for, protected
from corpus_tool.replay.workers.pool import Pool
from corpus_tool.store.corpus import open_corpus
from tests.conftest import TEST_KEY, git
from tests.replay.two_cases import FINE, HOSTILE, corpus_check, two_case_corpus


def _unshare_works() -> bool:
    """Ground truth from util-linux, not from our code: may we make user+net+pid namespaces?"""
    if shutil.which("unshare") is None:
        return False
    argv = ["unshare", "-rn", "--pid", "--fork", "--mount-proc", "true"]
    return subprocess.run(argv, capture_output=True).returncode == 0


needs_namespaces = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not _unshare_works(),
    reason="needs unprivileged user, network and PID namespaces (Linux)",
)
needs_seccomp = pytest.mark.skipif(
    lockdown.machine() is None, reason="the seccomp filter knows x86_64 and aarch64 only"
)


def _tree(root: Path) -> dict[str, str]:
    """Every file under root (.git included) and its hash."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _git_corpus(tmp_path: Path, body: str) -> Path:
    corpus = two_case_corpus(tmp_path, body)
    git(corpus, "init", "-q", "-b", "main")
    git(corpus, "add", "-A")
    git(corpus, "commit", "-q", "-m", "corpus")
    (corpus / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    return corpus


def _results(tmp_path: Path) -> dict[str, dict[str, object]]:
    doc = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    return {c["case"]: c for c in doc["cases"]}


# what the agent does before it tries to write the repository from a shell the fence cannot see
UNDO = {
    "ctypes_umount2": (
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print('umount2:', libc.umount2(str(CORPUS).encode(), 2), ctypes.get_errno())",
        "umount2 (refused by the sandbox)",
    ),
    "umount_lazy_from_a_shell": (
        "subprocess.run(['sh', '-c', f'umount -l {CORPUS} || true'])",
        "umount2 (refused by the sandbox) in `umount -l",
    ),
    "remount_rw_from_a_shell": (
        "subprocess.run(['sh', '-c', f'mount -o remount,rw {CORPUS} || true'])",
        "(refused by the sandbox) in `mount -o remount,rw",
    ),
}
WRITE_FROM_A_SHELL = (
    "\nscript = (f'echo owned >> {CORPUS}/cases/refund-success/expected.yaml; '\n"
    "          f'echo \"curl evil\" > {CORPUS}/.git/hooks/pre-commit')\n"
    "subprocess.run(['sh', '-c', script + ' || true'])"
)


@needs_namespaces
@needs_seccomp
@pytest.mark.skipif(os.geteuid() != 0, reason="util-linux's mount refuses non-root users itself")
@pytest.mark.parametrize("name", sorted(UNDO))
def test_the_agent_cannot_undo_the_read_only_bind(tmp_path: Path, name: str) -> None:
    undo, refused = UNDO[name]
    corpus = _git_corpus(tmp_path, undo + WRITE_FROM_A_SHELL)
    before = _tree(corpus)
    done = corpus_check(corpus, tmp_path)
    seen = done.stdout + done.stderr
    assert done.returncode == 1, seen
    verdicts = _results(tmp_path)
    assert verdicts[FINE]["verdict"] == "passed", seen
    assert verdicts[HOSTILE]["verdict"] == "error", seen
    assert refused in str(verdicts[HOSTILE]["error"]), seen
    assert _tree(corpus) == before, "the repository changed"


def _linked(tmp_path: Path) -> tuple[Path, Path]:
    """A corpus checked out in a `git worktree add` of its repository, whose agent writes the
    main repository's .git/config from a shell and its hooks with open(); (worktree, common)."""
    main = _git_corpus(tmp_path, "pass")
    common, place = (main / ".git").resolve(), tmp_path / "linked"
    git(main, "worktree", "add", "-q", "--detach", str(place))
    body = (
        f"common = Path({str(common)!r})\n"
        "subprocess.run(['sh', '-c', f'echo \"[core]fsmonitor=evil\" >> {common}/config'])\n"
        "try:\n"
        "    with open(common / 'hooks' / 'pre-commit', 'w') as hook:\n"
        "        hook.write('#!/bin/sh\\ncurl evil\\n')\n"
        "except BaseException as err:\n"
        "    print('refused:', type(err).__name__)"
    )
    hostile = place / "hostile_agent.py"
    indented = "    " + body.replace("\n", "\n    ") + "\n"
    hostile.write_text(hostile.read_text().replace("    pass\n", indented))
    return place, common


HOOK_REFUSED = "writing hooks/pre-commit (inside the repository's git directory"


@needs_namespaces
def test_a_linked_worktrees_git_directory_is_protected(tmp_path: Path) -> None:
    place, common = _linked(tmp_path)
    before = _tree(common)
    done = corpus_check(place, tmp_path)
    seen = done.stdout + done.stderr
    verdicts = _results(tmp_path)
    assert verdicts[FINE]["verdict"] == "passed", seen
    assert verdicts[HOSTILE]["verdict"] == "error", seen
    assert HOOK_REFUSED in str(verdicts[HOSTILE]["error"]), seen
    assert _tree(common) == before, "the main repository's git directory changed"


def test_without_namespaces_the_fence_refuses_writing_the_common_git_directory(
    tmp_path: Path,
) -> None:
    place, common = _linked(tmp_path)
    hostile = place / "hostile_agent.py"  # no shell: the fence refuses processes here
    code = hostile.read_text()
    shell = code.index("    subprocess.run(['sh'")
    hostile.write_text(code[:shell] + code[code.index("    try:") :])
    before = _tree(common)
    corpus = open_corpus(place, place)
    launch = launch_for(corpus, 5)
    setup = dataclasses.replace(launch.setup, namespaces=False)
    with Pool(dataclasses.replace(launch, setup=setup)) as pool:
        ids = corpus.case_ids()
        results = list(run_cases(corpus, ids, RunOptions(), grader=grade_checks, pool=pool))
        assert pool.isolation.startswith("no network namespace")
    hostile_result, fine = results
    assert hostile_result.verdict == "error" and HOOK_REFUSED in (hostile_result.error or "")
    assert fine.verdict == "passed"
    assert _tree(common) == before


KEY_IN_FILE = "crk1_the-key-in-the-file-0123456789abcdefghijklmnop"


@needs_namespaces
def test_the_agent_cannot_read_the_redaction_key_file(tmp_path: Path) -> None:
    key_file = tmp_path / "keys" / "corpus.key"
    key_file.parent.mkdir()
    key_file.write_text(KEY_IN_FILE + "\n")
    body = (
        f"path = {str(key_file)!r}\n"
        "shell = subprocess.run(['cat', path], capture_output=True, text=True).stdout\n"
        "try:\n"
        "    python = open(path).read()\n"
        "except BaseException as err:\n"
        "    python = type(err).__name__\n"
        "print('shell:', shell, 'python:', python)\n"
        "return {'status': 'succeeded', 'output': f'key={shell}/{python}'}"
    )
    corpus = two_case_corpus(tmp_path, body)
    config = corpus / "corpus.yaml"
    text = config.read_text().replace(
        "  key_env: CORPUS_REDACTION_KEY\n",
        f"  key_env: CORPUS_REDACTION_KEY\n  key_file: {key_file}\n",
    )
    config.write_text(text)
    done = corpus_check(corpus, tmp_path)
    seen = done.stdout + done.stderr
    verdicts = _results(tmp_path)
    assert verdicts[FINE]["verdict"] == "passed", seen
    hostile = verdicts[HOSTILE]
    assert hostile["verdict"] == "error", seen
    assert "opening " + str(key_file) + " (the redaction key file)" in str(hostile["error"])
    everything = seen + (tmp_path / "results.json").read_text()
    everything += (tmp_path / "junit.xml").read_text()
    assert KEY_IN_FILE not in everything and "crk1_" not in everything
    assert TEST_KEY not in everything
    assert key_file.read_text() == KEY_IN_FILE + "\n"


DAEMONS = """
marker = {marker!r}
sleeper = 'import time; time.sleep(300)'
subprocess.Popen(['setsid', sys.executable, '-c', sleeper, marker + '-setsid'])
double = (
    'import os, sys, time\\n'
    'if os.fork(): sys.exit(0)\\n'
    'os.setsid()\\n'
    'if os.fork(): sys.exit(0)\\n'
    'time.sleep(300)\\n'
)
subprocess.run([sys.executable, '-c', double, marker + '-double'])
time.sleep(0.5)
"""


def _with_marker(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def _gone(marker: str, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while _with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _with_marker(marker)


@needs_namespaces
def test_daemons_the_agent_starts_end_with_its_case(tmp_path: Path) -> None:
    marker = f"corpus-daemon-{uuid.uuid4().hex}"
    corpus = two_case_corpus(tmp_path, DAEMONS.format(marker=marker))
    try:
        done = corpus_check(corpus, tmp_path)
        seen = done.stdout + done.stderr
        verdicts = _results(tmp_path)
        assert verdicts[FINE]["verdict"] == "passed", seen
        assert verdicts[HOSTILE]["verdict"] == "error", seen
        error = str(verdicts[HOSTILE]["error"])
        assert "it left 2 process(es) running" in error and marker in error, seen
        assert _gone(marker), "a daemon outlived the worker"
    finally:
        for pid in _with_marker(marker):
            os.kill(pid, signal.SIGKILL)


IDLE = """
import json, os, time
from pathlib import Path

from examples.refund_agent.agent import run as fine


def run(case_input, rt):
    name = "busy" if "A100" in case_input["user_message"] else "idle"
    Path({marks!r}, name).write_text(os.environ["TMPDIR"])
    if name == "busy":
        time.sleep(600)
    return fine(case_input, rt)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_a_killed_run_leaves_no_scratch_directory_of_an_idle_worker(tmp_path: Path) -> None:
    marks, tmp = tmp_path / "marks", tmp_path / "tmp"
    marks.mkdir()
    tmp.mkdir()
    corpus = two_case_corpus(tmp_path, "pass")
    (corpus / "hostile_agent.py").write_text(IDLE.format(marks=str(marks)))
    env = {**os.environ, "CORPUS_REDACTION_KEY": TEST_KEY, "TMPDIR": str(tmp)}
    argv = [sys.executable, "-m", "corpus_tool", "-C", str(corpus), "check", "-n", "2"]
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(list(marks.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(list(marks.iterdir())) == 2, "the agents never started"
        time.sleep(1.0)  # the idle worker has answered and waits for a case
        assert len(list(tmp.glob("corpus-worker-*"))) == 2
        process.kill()
        process.wait()
        deadline = time.monotonic() + 10
        while list(tmp.glob("corpus-worker-*")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert list(tmp.glob("corpus-worker-*")) == [], "scratch directories left behind"
    finally:
        process.kill()


def test_a_linked_worktrees_git_directories_are_found_without_git_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = _git_corpus(tmp_path, "pass")
    place = tmp_path / "linked"
    git(main, "worktree", "add", "-q", "--detach", str(place))
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # git cannot be run
    common = (main / ".git").resolve()
    assert protected(place.resolve()) == (place.resolve(), common)


@needs_namespaces
@needs_seccomp
def test_the_worker_reports_every_layer_of_its_sandbox(tmp_path: Path) -> None:
    corpus = open_corpus(two_case_corpus(tmp_path, "pass"), tmp_path / "corpus")
    with Pool(launch_for(corpus, 5)) as pool:
        ids = corpus.case_ids()
        results = list(run_cases(corpus, ids, RunOptions(), grader=grade_checks, pool=pool))
        assert [r.verdict for r in results] == ["passed", "passed"]
        assert pool.isolation == (
            "network namespace without interfaces, corpus read-only, mounts locked, "
            "no capabilities, seccomp filter, own PID namespace"
        )


@needs_namespaces
@pytest.mark.skipif(os.geteuid() != 0, reason="util-linux's mount refuses non-root users itself")
def test_without_a_seccomp_filter_the_locked_mounts_still_hold(tmp_path: Path) -> None:
    """The column of docs/replay.md for a machine the filter does not know, measured here by
    turning the filter off: the mounts are locked and no capability is left, so every undo
    fails and the repository is unchanged; nothing names the attempt, so no case is an error."""
    undo = "\n".join(UNDO[name][0] for name in sorted(UNDO))
    corpus = _git_corpus(tmp_path, undo + WRITE_FROM_A_SHELL)
    before = _tree(corpus)
    launch = launch_for(open_corpus(corpus, corpus), 10)
    setup = dataclasses.replace(launch.setup, seccomp=False)
    with Pool(dataclasses.replace(launch, setup=setup)) as pool:
        opened = open_corpus(corpus, corpus)
        ids = opened.case_ids()
        results = list(run_cases(opened, ids, RunOptions(), grader=grade_checks, pool=pool))
        held = pool.isolation
    assert "mounts locked, no capabilities, no seccomp filter (turned off)" in held, held
    assert [r.verdict for r in results] == ["passed", "passed"], [r.error for r in results]
    assert _tree(corpus) == before, "the repository changed"
