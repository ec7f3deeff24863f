"""What the command line tells a newcomer: one-line usage errors, `path:line:` findings,
REVIEW on every drafted expectation, messages that name commands rather than repository files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_tool.cli import parser
from tests.conftest import EXAMPLES, ROOT, Cli

BAD_COMMAND_LINES = [
    ((), "corpus"),
    (("bogus",), "corpus"),
    (("add",), "corpus add"),
    (("add", "x.json", "--tier", "someday"), "corpus add"),
    (("validate", "--nope"), "corpus validate"),
    (("check", "--repeat", "0"), "corpus check"),
    (("affected",), "corpus affected"),
    (("keygen", "--show-id", "--output", "k"), "corpus keygen"),
]


@pytest.mark.parametrize(("argv", "prog"), BAD_COMMAND_LINES)
def test_usage_errors_are_one_line_naming_the_help_to_read(
    argv: tuple[str, ...], prog: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "corpus_tool", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"{prog}: error: ")
    assert done.stderr.rstrip().endswith(f"(see `{prog} --help`)")


def test_every_usage_error_names_a_help_that_exists() -> None:
    commands = {f"corpus {name}" for name in parser()._subparsers._group_actions[0].choices}  # type: ignore[union-attr]
    assert {prog for _, prog in BAD_COMMAND_LINES} <= commands | {"corpus"}


def test_a_finding_without_a_line_still_reads_path_line(corpus_dir: Path, cli: Cli) -> None:
    incident = EXAMPLES / "incidents/refund-success.json"
    assert cli("-C", corpus_dir, "add", incident, "--id", "r").code == 0
    (corpus_dir / "cases/r/expected.yaml").unlink()
    text = cli("validate", cwd=corpus_dir)
    assert text.code == 1
    assert "cases/r/expected.yaml:1: [case.files] case r has no expected.yaml" in text.out
    as_json = json.loads(cli("validate", "--format", "json", cwd=corpus_dir).out)
    [finding] = as_json["findings"]
    assert finding["line"] is None  # machines are told there is no line


def _with_agent_error(tmp_path: Path) -> Path:
    """An example incident whose agent crashed before the end (an `error` event)."""
    doc = json.loads((EXAMPLES / "incidents/refund-success.json").read_text())
    final = doc["events"][-1]
    crash = {
        "seq": final["seq"],
        "type": "error",
        "node": "calculator",
        "error": "ZeroDivisionError: division by zero",
        "timestamp": doc["events"][-2]["timestamp"],
    }
    doc["events"][-1:] = [crash, {**final, "seq": final["seq"] + 1, "status": "failed"}]
    path = tmp_path / "crash.json"
    path.write_text(json.dumps(doc))
    return path


def _drafted_lines(text: str) -> list[str]:
    """Lines holding a value under `trigger:` and `expect:` (what add decided for the reviewer)."""
    lines, inside = [], False
    for line in text.splitlines():
        if not line.startswith((" ", "#")):
            inside = line.startswith(("trigger:", "expect:"))
            if inside and not line.split("#")[0].rstrip().endswith(":"):
                lines.append(line)  # a one-line mapping: `trigger: {error_type: E, seq: 3}`
            continue
        if inside and not line.rstrip().endswith(":") and not line.lstrip().startswith("#"):
            lines.append(line)
    return lines


def test_every_drafted_expectation_line_is_marked_review(
    corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    incidents = [*sorted((EXAMPLES / "incidents").glob("*.json")), _with_agent_error(tmp_path)]
    for number, incident in enumerate(incidents):
        added = cli("-C", corpus_dir, "add", incident, "--id", f"c{number}", "--allow-incomplete")
        assert added.code == 0, added.err
        text = (corpus_dir / f"cases/c{number}/expected.yaml").read_text()
        drafted = _drafted_lines(text)
        assert drafted, text
        assert [line for line in drafted if "# REVIEW" not in line and "; REVIEW" not in line] == []
    crashed = (corpus_dir / f"cases/c{len(incidents) - 1}/expected.yaml").read_text()
    assert "forbidden: [ZeroDivisionError]" in crashed  # the errors line was among those checked
    assert "trigger: {error_type: ZeroDivisionError, seq: " in crashed


def test_no_entrypoint_names_a_help_that_explains_it(tmp_path: Path, cli: Cli) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus", corpus)
    config = corpus / "corpus.yaml"
    config.write_text(
        "\n".join(x for x in config.read_text().splitlines() if "entrypoint:" not in x) + "\n"
    )
    done = cli("-C", corpus, "replay")
    assert done.code == 2 and "`corpus replay --help`" in done.err and "docs/" not in done.err
    helped = cli("replay", "--help")
    assert "agent.entrypoint" in helped.out and "run(case_input, rt)" in helped.out


def test_cli_every_command_of_the_topic_modules_is_listed_once() -> None:
    from corpus_tool import cli
    from corpus_tool.cli import checking, gating, writing

    tables = [writing.COMMANDS, checking.COMMANDS, gating.COMMANDS]
    names = [name for table in tables for name in table]
    assert len(names) == len(set(names)), "a command is defined in two modules"
    assert sorted(cli.ORDER) == sorted(names), "a command is missing from `corpus --help`"
    listed = parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(listed) == list(cli.ORDER)
