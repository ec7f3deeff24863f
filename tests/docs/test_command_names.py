"""No doc, message or help names a `corpus` command that does not exist: every `corpus <verb>`
in README.md, docs/*.md and the strings of corpus_tool/ answers `corpus <verb> --help`."""

from __future__ import annotations

import ast
import re

import pytest

from corpus_tool.cli import main
from tests.conftest import ROOT

# `corpus VERB`, `corpus -C DIR VERB`, `corpus [-C DIR] VERB` where a command starts: at the
# start of a backtick span or a code line (after a prompt, `run:`, a list dash), or after a
# shell operator; never `--corpus DIR` or prose such as "the corpus key"
_NAMED = re.compile(
    r"(?:^[\s$>-]*(?:run:\s*)?|(?:&&|\|\||[;|(])\s*)"
    r"corpus(?: \[-C DIR\])?(?: -C [^\s`]+)? ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?",
    re.M,
)
_CODE = re.compile(r"```[a-z]*\n(.*?)```|`([^`\n]+)`", re.S)
_SUBCOMMANDS = {"waivers": {"list", "new", "expired", "unused"}}


def _in_code(text: str) -> list[str]:
    return [block or span for block, span in _CODE.findall(text)]


def _doc_texts() -> dict[str, list[str]]:
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return {p.name: _in_code(p.read_text(encoding="utf-8")) for p in paths}


def _message_texts() -> dict[str, list[str]]:
    """String constants of the package that show a command in backticks (messages, help)."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "corpus_tool").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
        found[str(path.relative_to(ROOT))] = [
            span for text in strings if "`corpus " in text for span in _in_code(text)
        ]
    return found


def _named(texts: dict[str, list[str]]) -> set[tuple[str, ...]]:
    commands: set[tuple[str, ...]] = set()
    for chunks in texts.values():
        for chunk in chunks:
            for verb, sub in _NAMED.findall(chunk):
                known = _SUBCOMMANDS.get(verb, set())
                commands.add((verb, sub) if sub in known else (verb,))
    return commands


NAMED = sorted(_named(_doc_texts()) | _named(_message_texts()))


def test_docs_and_messages_name_the_commands_they_should() -> None:
    """The walk finds what it must: a doc or message that names these and a walk that missed
    them would make the next test pass vacuously."""
    verbs = {n[0] for n in NAMED}
    assert {"gate", "migrate", "status", "waivers", "check", "validate", "affected"} <= verbs
    assert ("waivers", "new") in NAMED


@pytest.mark.parametrize("command", NAMED, ids=" ".join)
def test_every_named_command_exists(
    command: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    out = capsys.readouterr().out
    assert exited.value.code == 0, f"`corpus {' '.join(command)}` does not exist"
    assert out.startswith(f"usage: corpus {' '.join(command)}")
