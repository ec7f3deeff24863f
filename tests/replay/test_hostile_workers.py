"""Hostile agents, each run by a real `corpus check` on a two-case corpus: one case hostile, one
fine. Whatever the hostile case does, it gets a one-line ERROR or FAIL, the fine case passes, the
run exits 1 with both cases in the results, and the redaction key is nowhere to be seen."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY
from tests.replay.two_cases import FINE, HOSTILE, corpus_check, two_case_corpus

BODIES = {
    "sleeps_forever": "time.sleep(10**6)",
    "busy_loop": "while True:\n    pass",
    "os_exit": "os._exit(0)",
    "sys_exit": "sys.exit(3)",
    "non_daemon_thread": "threading.Thread(target=time.sleep, args=(10**6,)).start()",
    "forks": "os.fork()",
    "closes_fd_1_and_2": "os.close(1)\nos.close(2)",
    "kills_itself": "os.kill(os.getpid(), signal.SIGKILL)",
    "writes_garbage_into_its_pipes": (
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, b'\\xff' * 16)\n"
        "    except OSError:\n"
        "        pass"
    ),
    "opens_a_socket": "socket.create_connection(('127.0.0.1', {port}), timeout=5)",
    "subprocess_opens_a_socket": (
        "code = 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=5)'\n"
        "subprocess.run([sys.executable, '-c', code], check=True)"
    ),
    "reads_the_redaction_key": (
        "key = os.environ.get('CORPUS_REDACTION_KEY')\n"
        "print('environment:', dict(os.environ))\n"
        "subprocess.run(['cat', f'/proc/{{os.getppid()}}/environ'])  # past the audit hook\n"
        "try:\n"
        "    print('parent:', Path(f'/proc/{{os.getppid()}}/environ').read_bytes())\n"
        "except BaseException as err:\n"
        "    print('parent environment unreadable:', type(err).__name__)\n"
        "return {{'status': 'succeeded', 'output': f'key={{key}}'}}"
    ),
    "writes_into_the_corpus": (
        "target = CORPUS / 'cases' / 'refund-success' / 'expected.yaml'\n"
        "subprocess.run(['sh', '-c', f'echo \"expect: {{{{}}}}\" >> {{target}}'])\n"
        "target.write_text('schema_version: 1\\nid: refund-success\\n', encoding='utf-8')"
    ),
}
# what the one-line reason of each hostile case says (ERROR) or which verdict it gets (FAIL)
REASONS = {
    "sleeps_forever": ("error", "did not finish within 2 s"),
    "busy_loop": (
        "error",
        "did not finish within 2 s (replay.timeout_s or --timeout); stuck at hostile_agent.py:",
    ),
    "os_exit": ("error", "the worker exited with status 0"),
    "sys_exit": ("failed", "UnusedRecording"),
    "non_daemon_thread": ("error", "it left 1 thread(s) running"),
    "forks": ("error", "it forked the worker"),
    "closes_fd_1_and_2": ("error", "closed or replaced the worker's fd 1 and fd 2"),
    "kills_itself": ("error", "the worker was killed by SIGKILL"),
    "writes_garbage_into_its_pipes": ("error", "the worker sent an unreadable reply"),
    "opens_a_socket": ("failed", "Network at step 1"),
    "subprocess_opens_a_socket": ("failed", "UnusedRecording"),
    "reads_the_redaction_key": ("error", "it tried opening /proc/"),
    "writes_into_the_corpus": ("error", "it tried writing cases/refund-success/expected.yaml"),
}


@pytest.fixture()
def listener() -> Iterator[socket.socket]:
    """A local TCP server the hostile agents aim at; it must never see a connection."""
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    yield server
    server.close()


@pytest.mark.parametrize("name", sorted(BODIES))
def test_hostile_case_is_a_one_line_verdict_and_the_fine_case_passes(
    name: str, tmp_path: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    corpus = two_case_corpus(tmp_path, BODIES[name].format(port=port))
    before = {p: p.read_bytes() for p in corpus.rglob("*.yaml")}
    done = corpus_check(corpus, tmp_path)
    seen = done.stdout + done.stderr
    assert done.returncode == 1, seen
    doc = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    verdicts = {c["case"]: c for c in doc["cases"]}
    assert set(verdicts) == {HOSTILE, FINE}, seen
    assert verdicts[FINE]["verdict"] == "passed", seen
    hostile = verdicts[HOSTILE]
    verdict, reason = REASONS[name]
    assert hostile["verdict"] == verdict, seen
    line = next(li for li in done.stdout.splitlines() if HOSTILE in li)  # the verdict line
    assert reason in (hostile["error"] or line), seen
    if verdict == "error":
        assert "\n" not in hostile["error"] and hostile["error"] in line
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert f'name="{HOSTILE}"' in junit and f'name="{FINE}"' in junit
    assert TEST_KEY not in seen + json.dumps(doc) + junit
    assert {p: p.read_bytes() for p in corpus.rglob("*.yaml")} == before, "corpus changed"
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing connected


def test_a_case_past_its_limit_shows_where_it_was_stuck(
    tmp_path: Path, listener: socket.socket
) -> None:
    corpus = two_case_corpus(tmp_path, "print('about to sleep')\n" + BODIES["sleeps_forever"])
    done = corpus_check(corpus, tmp_path)
    hostile = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["cases"][0]
    assert "stuck at hostile_agent.py:" in hostile["error"] and "in hostile" in hostile["error"]
    assert any("hostile_agent.py" in line for line in hostile["stack"])
    assert hostile["output"] == "about to sleep\n"
    assert "captured output of the agent:\n    about to sleep" in done.stdout


def test_the_agents_prints_are_its_case_output_not_the_report(tmp_path: Path) -> None:
    body = "print('agent chatter')\nprint('more chatter', file=sys.stderr)"
    corpus = two_case_corpus(tmp_path, body)
    done = corpus_check(corpus, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "chatter" not in done.stdout + done.stderr  # passing: nothing shown, like pytest
    cases = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["cases"]
    assert cases[0]["output"] == "agent chatter\nmore chatter\n"
    assert cases[1]["output"] == ""


def test_json_output_stays_parseable_whatever_the_agent_does(tmp_path: Path) -> None:
    corpus = two_case_corpus(tmp_path, "print('{not json')\n" + BODIES["closes_fd_1_and_2"])
    done = corpus_check(corpus, tmp_path, "--format", "json")
    assert done.returncode == 1
    assert [c["verdict"] for c in json.loads(done.stdout)["cases"]] == ["error", "passed"]
