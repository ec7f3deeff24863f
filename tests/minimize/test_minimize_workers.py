"""`corpus minimize` and `corpus add --minimize` run the agent only in replay workers, as
`check` does: real `corpus` processes against agents written here that exit, hang, hang on some
candidates only, or report what environment they were given.

Ground truth is what the agent itself did (the marks it leaves outside the corpus, the turn it
hangs on) and what `corpus replay` says of the same case, never minimize's own report alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, TEST_KEY, Cli
from tests.minimize.padded import padded_case
from tests.recording import seqs_of

HANG_GUARD_S = 120  # far above any --timeout here: only a hung `corpus` process reaches it
CASE = "refund-padded"


def corpus_run(corpus: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """`corpus -C CORPUS ARGS...` as a user runs it: a real process, the key in its environment."""
    argv = [sys.executable, "-m", "corpus_tool", "-C", str(corpus), *map(str, args)]
    env = {**os.environ, "CORPUS_REDACTION_KEY": TEST_KEY}
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=HANG_GUARD_S)


def _agent(corpus: Path, source: str) -> None:
    """Make `agent_under_test:run` the corpus's agent, written from `source`."""
    (corpus / "agent_under_test.py").write_text(textwrap.dedent(source), encoding="utf-8")
    config = corpus / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("examples.refund_agent.agent:run", "agent_under_test:run"))


def _case_files(corpus: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted((corpus / "cases").rglob("*")) if p.is_file()}


@pytest.fixture
def padded(tmp_path: Path, cli: Cli) -> tuple[Path, dict[str, Any]]:
    return padded_case(tmp_path, cli)


def _one_line_refusal(done: subprocess.CompletedProcess[str], code: int, *said: str) -> None:
    seen = done.stdout + done.stderr
    assert done.returncode == code, seen
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, seen
    assert done.stderr.startswith("corpus minimize: error: "), seen
    assert "Traceback" not in seen
    for words in said:
        assert words in done.stderr, seen


# -- the whole case cannot be replayed ------------------------------------------------------
EXITS = """
    import os


    def run(case_input, rt):
        os._exit(0)
"""
HANGS = """
    import time


    def run(case_input, rt):
        time.sleep(10**6)
"""
CANNOT_IMPORT = """
    raise RuntimeError("no model credentials on this machine")
"""


def test_minimize_with_an_agent_that_exits_says_so_and_writes_nothing(
    padded: tuple[Path, dict[str, Any]],
) -> None:
    corpus, _ = padded
    _agent(corpus, EXITS)
    before = _case_files(corpus)
    done = corpus_run(corpus, "minimize", CASE, "--until", "tools.args")
    _one_line_refusal(
        done, 1, CASE, "cannot replay the whole case", "the worker exited with status 0"
    )
    assert _case_files(corpus) == before


def test_minimize_with_an_agent_that_hangs_ends_at_the_timeout(
    padded: tuple[Path, dict[str, Any]],
) -> None:
    corpus, _ = padded
    _agent(corpus, HANGS)
    before = _case_files(corpus)
    done = corpus_run(corpus, "minimize", CASE, "--timeout", "1")
    _one_line_refusal(done, 1, CASE, "did not finish within 1 s", "stuck at agent_under_test.py")
    assert _case_files(corpus) == before


def test_minimize_with_an_agent_that_cannot_be_imported_is_an_input_error(
    padded: tuple[Path, dict[str, Any]],
) -> None:
    corpus, _ = padded
    _agent(corpus, CANNOT_IMPORT)
    before = _case_files(corpus)
    done = corpus_run(corpus, "minimize", CASE)
    _one_line_refusal(done, 2, "agent.entrypoint", "no model credentials on this machine")
    assert _case_files(corpus) == before


# -- some candidates hang -------------------------------------------------------------------
HANGS_WITHOUT_THE_FIRST_TURN = """
    import time
    from pathlib import Path

    from examples.refund_agent.agent import run as real

    MARKS = Path({marks!r})


    class Watched:
        \"\"\"The runtime, with the first model answer looked at.\"\"\"

        def __init__(self, rt):
            self._rt, self._first = rt, True

        def __getattr__(self, name):
            return getattr(self._rt, name)

        def model(self, *args, **kwargs):
            reply = self._rt.model(*args, **kwargs)
            first, self._first = self._first, False
            if first and [call.name for call in reply.tool_calls] != ["check_refund"]:
                with MARKS.open("a") as marks:
                    marks.write("hung\\n")
                time.sleep(10**6)  # any candidate without the first padding turn hangs
            return reply


    def run(case_input, rt):
        return real(case_input, Watched(rt))
"""


def test_minimize_completes_when_some_candidates_hang_and_the_result_reproduces(
    padded: tuple[Path, dict[str, Any]], tmp_path: Path, cli: Cli
) -> None:
    corpus, incident = padded
    marks = tmp_path / "marks.txt"
    _agent(corpus, HANGS_WITHOUT_THE_FIRST_TURN.format(marks=str(marks)))
    models = seqs_of(incident, type="llm_request")
    first_padding = {models[0], *seqs_of(incident, tool="check_refund")}

    done = corpus_run(corpus, "minimize", CASE, "--until", "tools.args", "--timeout", "0.5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert marks.read_text(encoding="utf-8").count("hung") >= 1  # candidates did hang
    trace = yaml.safe_load((corpus / "cases" / CASE / "trace.yaml").read_text(encoding="utf-8"))
    kept = {e["seq"] for e in trace["events"]}
    assert first_padding <= kept  # every candidate without it hung: never taken as a success
    assert trace["source"]["minimized"]["removed"]  # the rest of the search went on
    code, out, _ = cli("-C", corpus, "replay", CASE, "--format", "json")
    case = json.loads(out)["cases"][0]
    assert code == 1 and case["verdict"] == "failed" and "tools.args" in case["failed_checks"]


# -- the redaction key ----------------------------------------------------------------------
REPORTS_ITS_ENVIRONMENT = """
    import os
    from pathlib import Path

    from examples.refund_agent.agent import run as real

    MARKS = Path({marks!r})


    def run(case_input, rt):
        with MARKS.open("a") as marks:
            marks.write(repr(sorted(os.environ.items())) + "\\n")
        return real(case_input, rt)
"""


def test_minimize_agent_never_sees_the_redaction_key(
    padded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    corpus, _ = padded
    marks = tmp_path / "marks.txt"
    _agent(corpus, REPORTS_ITS_ENVIRONMENT.format(marks=str(marks)))
    done = corpus_run(corpus, "minimize", CASE, "--until", "tools.args", "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    seen = marks.read_text(encoding="utf-8")
    assert len(seen.splitlines()) == json.loads(done.stdout)["replays"] > 1  # every replay
    assert TEST_KEY not in seen and "CORPUS_REDACTION_KEY" not in seen
    assert TEST_KEY not in done.stdout + done.stderr


def test_add_minimize_agent_never_sees_the_redaction_key(
    padded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    corpus, _ = padded
    marks = tmp_path / "marks.txt"
    _agent(corpus, REPORTS_ITS_ENVIRONMENT.format(marks=str(marks)))
    done = corpus_run(corpus, "add", tmp_path / "padded.json", "--id", "again", "--minimize")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (corpus / "cases" / "again" / "trace.yaml").is_file()
    seen = marks.read_text(encoding="utf-8")
    assert len(seen.splitlines()) > 1
    assert TEST_KEY not in seen and "CORPUS_REDACTION_KEY" not in seen


def test_add_minimize_with_an_agent_that_exits_writes_nothing(
    padded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    corpus, _ = padded
    _agent(corpus, EXITS)
    before = _case_files(corpus)
    done = corpus_run(corpus, "add", tmp_path / "padded.json", "--id", "again", "--minimize")
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert "the worker exited with status 0" in done.stderr
    assert _case_files(corpus) == before and not (corpus / "cases" / "again").exists()


# -- request_fields -------------------------------------------------------------------------
def _one_sided_corpus(tmp_path: Path, where: str) -> Path:
    """refund-success, its recording carrying a request field the agent never sends
    (params.top_p), with `request_fields: all` set `where` (case, corpus, or nowhere)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", corpus)
    trace = corpus / "cases" / "refund-success" / "trace.yaml"
    text = trace.read_text(encoding="utf-8")
    assert "    temperature: 0.0\n" in text
    trace.write_text(
        text.replace("    temperature: 0.0\n", "    temperature: 0.0\n    params: {top_p: 0.5}\n")
    )
    if where == "case":
        expected = corpus / "cases" / "refund-success" / "expected.yaml"
        text = expected.read_text(encoding="utf-8")
        expected.write_text(
            text.replace("  mode: strict\n", "  mode: strict\n  request_fields: all\n")
        )
    if where == "corpus":
        config = corpus / "corpus.yaml"
        text = config.read_text(encoding="utf-8")
        config.write_text(
            text.replace("  mode: strict\n", "  mode: strict\n  request_fields: all\n")
        )
    return corpus


@pytest.mark.parametrize("where", ["case", "corpus", "nowhere"])
def test_minimize_judges_request_fields_as_check_does(where: str, tmp_path: Path, cli: Cli) -> None:
    corpus = _one_sided_corpus(tmp_path, where)
    assert cli("-C", corpus, "validate", corpus / "cases/refund-success").code == 0
    _, out, _ = cli("-C", corpus, "replay", "refund-success", "--format", "json")
    case = json.loads(out)["cases"][0]
    diverged = (case["divergence"] or {}).get("kind") == "ModelRequest"
    assert diverged == (where != "nowhere")  # what check says: the ground truth
    done = corpus_run(corpus, "minimize", "refund-success", "--until", "ModelRequest", "--dry-run")
    if diverged:
        assert done.returncode == 0, done.stdout + done.stderr
        assert "keeping: divergence ModelRequest" in done.stdout
    else:
        assert done.returncode == 2 and "does not reproduce" in done.stderr
