"""The findings cache of `corpus validate` survives what the `affected` cache survives.

Both caches are checksummed JSON files in the git dir; a hostile or broken one must mean
"validate again", never a hang in the pre-commit hook or an internal error.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_tool.io import files
from corpus_tool.validate import cache as findings_cache
from tests.conftest import EXAMPLES, ROOT, Cli, git


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The example corpus, with an unredacted email planted in one trace (a finding to keep)."""
    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", root)
    trace = root / "cases/refund-success/trace.yaml"
    text = trace.read_text(encoding="utf-8")
    trace.write_text(text.replace("channel: web", "channel: web\n    email: jane.doe@example.com"))
    return root


def _validate(corpus: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`corpus validate --format json` in a process of its own (a hang is caught, not waited)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "corpus_tool",
            "-C",
            str(corpus),
            "validate",
            "--format",
            "json",
            *extra,
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_fifo_in_place_of_the_findings_cache_does_not_hang(corpus: Path, cache_dir: Path) -> None:
    cold = _validate(corpus, "--no-cache")
    assert cold.returncode == 1 and "redaction.email" in cold.stdout
    os.mkfifo(cache_dir / findings_cache.FILE_NAME)  # reading it would block until a writer came
    warm = _validate(corpus)
    assert (warm.returncode, warm.stdout, warm.stderr) == (1, cold.stdout, "")


def test_a_checksummed_but_deeply_nested_findings_cache_is_rebuilt(
    cli: Cli, corpus: Path, cache_dir: Path
) -> None:
    cold = cli("-C", corpus, "validate", "--format", "json", "--no-cache")
    assert cold.code == 1 and "redaction.email" in cold.out
    body = '{"entries":' + "[" * 100_000 + "]" * 100_000 + ',"format":1}'
    digest = hashlib.sha256(body.encode()).hexdigest()
    path = cache_dir / findings_cache.FILE_NAME
    path.write_text(f"sha256 {digest}\n{body}", encoding="utf-8")
    warm = cli("-C", corpus, "validate", "--format", "json")
    assert (warm.code, warm.out, warm.err) == (1, cold.out, "")
    header, _, text = path.read_text(encoding="utf-8").partition("\n")
    assert header == f"sha256 {hashlib.sha256(text.encode()).hexdigest()}"  # rebuilt
    assert json.loads(text)["entries"]


@pytest.fixture
def results(cli: Cli, tmp_path: Path) -> Path:
    """The results document of a real replay of the example corpus."""
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES / "corpus", root)
    path = tmp_path / "results.json"
    assert cli("-C", root, "replay", "--results", path).code == 0
    return path


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_diff_refuses_a_results_document_the_schema_refuses(
    cli: Cli, results: Path, tmp_path: Path, form: str
) -> None:
    """The compiled schema check answers for valid documents only: a bad verdict still names
    its place, whether the document is JSON or YAML."""
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert cli("diff", results, results).code == 0  # the untouched document compares
    doc["cases"][0]["verdict"] = "maybe"
    bad = tmp_path / f"bad.{form}"
    bad.write_text(json.dumps(doc) if form == "json" else files.dump_yaml(doc), encoding="utf-8")
    code, out, err = cli("diff", results, bad)
    assert (code, out) == (2, "")
    assert "not a valid results document: $.cases[0].verdict: 'maybe'" in err
    assert str(bad) in err


def _modules_after(*args: str | Path) -> set[str]:
    """The modules a `corpus ARGS...` process has loaded by the time it ends."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('\\n'.join(sorted(sys.modules)), file=sys.stderr))\n"
        "from corpus_tool.cli import main\n"
        f"sys.exit(main({[str(a) for a in args]!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return set(done.stderr.split())


@pytest.mark.parametrize(
    "args", [("status",), ("status", "--results", "RESULTS"), ("waivers", "list")]
)
def test_reading_waivers_and_results_loads_no_replay_engine_or_grader(
    results: Path, args: tuple[str, ...]
) -> None:
    corpus = results.parent / "examples"
    given = [str(results) if a == "RESULTS" else a for a in args]
    modules = _modules_after("-C", corpus, *given)
    assert "corpus_tool.waivers.book" in modules  # the waivers were read
    loaded = {m.split(".")[1] for m in modules if m.startswith("corpus_tool.")}
    assert not loaded & {"replay", "grade"}, sorted(loaded)


@pytest.fixture
def history(git_repo: Path) -> Path:
    """A repository whose evals/ holds the example corpus, committed."""
    shutil.copytree(EXAMPLES / "corpus", git_repo / "evals")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "corpus")
    return git_repo


def test_affected_checks_the_head_corpus_yaml_without_loading_jsonschema(history: Path) -> None:
    trace = history / "evals/cases/refund-success/trace.yaml"
    trace.write_text(trace.read_text(encoding="utf-8").replace("channel: web", "channel: app"))
    git(history, "commit", "-q", "-am", "edit a case")
    modules = _modules_after("-C", history / "evals", "affected", "--base", "HEAD~1")
    assert "corpus_tool.select.changed" in modules
    assert not {m for m in modules if m.split(".")[0] == "jsonschema"}


def test_affected_refuses_a_head_corpus_yaml_the_schema_refuses(cli: Cli, history: Path) -> None:
    """The compiled check only ever says "valid": a bad entrypoint still names its place."""
    config = history / "evals/corpus.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("examples.refund_agent.agent:run", "not an entrypoint"))
    git(history, "commit", "-q", "-am", "break the entrypoint")
    code, out, err = cli("-C", history / "evals", "affected", "--base", "HEAD~1")
    assert (code, out) == (2, "")
    assert "corpus.yaml" in err and "$.agent.entrypoint: 'not an entrypoint' does not match" in err
