"""Commands load only what they use: `--help` and `validate` stay quick in a pre-commit hook."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT, git


def _modules_after(*args: str, cwd: Path, code: int = 0) -> set[str]:
    """The modules a `corpus ARGS...` run (ending with exit `code`) has loaded by then."""
    program = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('\\n'.join(sorted(sys.modules)), file=sys.stderr))\n"
        "from corpus_tool.cli import main\n"
        f"sys.exit(main({list(args)!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == code, done.stderr
    return set(done.stderr.split())


def _loaded(modules: set[str], *prefixes: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


def test_help_loads_no_replay_or_third_party_packages() -> None:
    modules = _modules_after("--help", cwd=ROOT)
    assert _loaded(modules, "corpus_tool.replay", "yaml", "jsonschema", "rich", "git") == []


def test_validate_loads_no_replay_grading_git_or_rich() -> None:
    modules = _modules_after("-C", str(EXAMPLES / "corpus"), "validate", cwd=ROOT)
    assert "corpus_tool.validate.rules" in modules
    assert _loaded(modules, "corpus_tool.replay", "corpus_tool.grade", "rich", "git") == []


def test_init_loads_no_validator_redaction_or_replay(tmp_path: Path) -> None:
    modules = _modules_after("init", str(tmp_path / "corpus"), cwd=ROOT)
    assert (tmp_path / "corpus" / "corpus.yaml").is_file()
    assert _loaded(modules, "jsonschema", "corpus_tool.redact", "corpus_tool.replay") == []


def test_validate_with_waivers_loads_no_grader_or_runtime(tmp_path: Path) -> None:
    from datetime import date, timedelta

    corpus = tmp_path / "corpus"
    today = date.today()
    shutil.copytree(EXAMPLES / "corpus", corpus)
    (corpus / "waivers" / "W-1.yaml").write_text(
        "schema_version: 1\nid: W-1\ncase: refund-wrong-unit\n"
        "checks: [tools.args, replay.divergence]\n"
        "reason: the prompt fix is re-recorded next sprint\nowner: payments\n"
        f"created: '{today}'\nexpires: '{today + timedelta(days=30)}'\n",
        encoding="utf-8",
    )
    modules = _modules_after("-C", str(corpus), "validate", "--format", "json", cwd=ROOT)
    assert _loaded(modules, "corpus_tool.replay", "corpus_tool.grade") == []
    assert "corpus_tool.model.checks" in modules


@pytest.mark.parametrize(
    "args", [("status",), ("status", "--results", "RESULTS"), ("waivers", "list")]
)
def test_reading_waivers_and_results_loads_no_replay_engine_or_grader(
    example_results: Path, args: tuple[str, ...]
) -> None:
    corpus = example_results.parent / "examples"
    given = [str(example_results) if a == "RESULTS" else a for a in args]
    modules = _modules_after("-C", str(corpus), *given, cwd=ROOT)
    assert "corpus_tool.waivers.book" in modules  # the waivers were read
    loaded = {m.split(".")[1] for m in modules if m.startswith("corpus_tool.")}
    assert not loaded & {"replay", "grade"}, sorted(loaded)


def test_affected_checks_the_head_corpus_yaml_without_loading_jsonschema(
    committed_examples: Path,
) -> None:
    repo = committed_examples
    trace = repo / "evals/cases/refund-success/trace.yaml"
    trace.write_text(trace.read_text(encoding="utf-8").replace("channel: web", "channel: app"))
    git(repo, "commit", "-q", "-am", "edit a case")
    modules = _modules_after("-C", str(repo / "evals"), "affected", "--base", "HEAD~1", cwd=ROOT)
    assert "corpus_tool.select.changed" in modules
    assert not {m for m in modules if m.split(".")[0] == "jsonschema"}


def test_check_without_html_loads_no_report_or_template_engine() -> None:
    """The HTML report (and Jinja2) cost `check` nothing unless `--html` asks for one."""
    modules = _modules_after("-C", str(EXAMPLES / "corpus"), "check", cwd=ROOT)
    assert "corpus_tool.replay.runner" in modules  # it did replay
    assert _loaded(modules, "corpus_tool.report", "jinja2") == []


def test_add_loads_the_minimizer_and_replay_engine_only_for_minimize(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain `corpus add` starts without the replay engine (a third of a second of imports);
    `--minimize` reaches the minimizer (here refused: the corpus names no agent to replay)."""
    monkeypatch.setenv("CORPUS_REDACTION_KEY", "startup-test-key-0123456789abcdef0123456789")
    incident = str(EXAMPLES / "incidents" / "refund-success.json")
    corpus = tmp_path / "corpus"
    subprocess.run([sys.executable, "-m", "corpus_tool", "init", str(corpus)], check=True)
    plain = _modules_after("-C", str(corpus), "add", incident, cwd=ROOT)
    assert list((corpus / "cases").glob("*/trace.yaml")), "no case written"
    assert "corpus_tool.author.plan" in plain
    assert _loaded(plain, "corpus_tool.replay", "corpus_tool.minimize") == []
    asked = _modules_after(
        "-C", str(corpus), "add", incident, "--id", "again", "--minimize", cwd=ROOT, code=2
    )
    assert "corpus_tool.author.minimized" in asked
    assert not (corpus / "cases" / "again").exists()
