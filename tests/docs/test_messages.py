"""What a message of corpus_tool/ names exists for the user who reads it.

A message is any string of the package that is not a docstring (errors, findings, notes, help
texts): its `corpus <verb>` must be a command (the parsers of corpus_tool/cli/; the sibling
tests/docs/test_command_names.py runs `--help` on each), the flags it names for a command
must be that command's, and a file of this repository it names (`docs/x.md`, `schemas/...`,
`README.md`) must be inside the wheel — the installed tool is all most users have, and the wheel
ships no docs (messages send them to `corpus <verb> --help` instead).
"""

from __future__ import annotations

import ast
import re
import shutil
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from corpus_tool.cli import parser
from tests.conftest import ROOT
from tests.docs.doc_lines import SPAN
from tests.docs.flags import Options, known, named_flags, parser_options

# a file or directory of this repository, as a message would name it
_PATH = re.compile(
    r"(?<![\w./-])(?:(?:docs|schemas|examples|bench|hooks|tests|corpus_tool)/[\w./-]*"
    r"|[\w-]+\.md)(?![\w/-])"
)
_COMMAND = re.compile(r"^corpus(?: -C \S+)? ([a-z][a-z-]*)(?: (list|new|expired|unused))?\b")


@dataclass(frozen=True)
class Message:
    """A string of the package a user may read, and where it is written."""

    where: str
    text: str


def _docstrings(tree: ast.AST) -> set[int]:
    """Strings standing alone as statements (docstrings, attribute docstrings), and the
    pieces of f-strings (read whole, below)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, (ast.Constant, ast.JoinedStr)):
            found.add(id(node.value))
        if isinstance(node, ast.JoinedStr):
            found.update(id(value) for value in node.values)
    return found


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):  # an f-string: what it fills in shows as {…}
        return "".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    return None


def messages(package: Path) -> Iterator[Message]:
    """Every string of the package under `package` that is not a docstring."""
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _docstrings(tree)
        for node in ast.walk(tree):
            text = _text(node)
            if text is not None and id(node) not in skipped:
                where = f"{path.relative_to(package.parent).as_posix()}:{node.lineno}"
                yield Message(where, text)


def _spans(text: str) -> list[str]:
    return [" ".join(span[2].split()) for span in SPAN.finditer(text)]


def _plain(text: str) -> list[str]:
    """`corpus VERB --flag ...` written outside backticks, up to the end of its clause (a
    `corpus` there may be the noun: only a known VERB counts, below)."""
    outside = SPAN.sub("", text)
    return [re.split(r"[.:] ", hit)[0] for hit in re.findall(r"corpus [^,;()`\n]*", outside)]


def _flag_problems(message: Message, text: str, options: Options, bare: bool) -> list[str]:
    return [
        f"{message.where}: `{text}`: `corpus {' '.join(flag.command)}` has no {flag.flag}"
        for flag in named_flags(text, bare=bare)
        if flag.command in options and not known(options, flag)
    ]


def _command_problems(message: Message, options: Options) -> list[str]:
    found = []
    for span in _spans(message.text):
        named = _COMMAND.match(span)
        command = tuple(part for part in named.groups() if part) if named else None
        if command is not None and command not in options:
            found.append(f"{message.where}: `{span}`: no command `corpus {' '.join(command)}`")
        found += _flag_problems(message, span, options, bare=True)
    for text in _plain(message.text):
        found += _flag_problems(message, text, options, bare=False)
    return found


def _shipped(name: str, wheel: set[str]) -> bool:
    """Whether the wheel holds the repository path `name` (schemas/ ship as
    corpus_tool/schemas/)."""
    inside = "corpus_tool/" + name if name.startswith("schemas/") else name
    return any(entry == inside or entry.startswith(inside.rstrip("/") + "/") for entry in wheel)


def _path_problems(message: Message, wheel: set[str]) -> list[str]:
    return [
        f"{message.where}: names {name}, which the installed tool does not ship "
        "(name `corpus <verb> --help`, or a file inside the package)"
        for name in _PATH.findall(message.text)
        if not _shipped(name, wheel)
    ]


def problems(package: Path, wheel: set[str]) -> list[str]:
    """Every command, flag or file a message of `package` names that its reader lacks."""
    options = parser_options(parser())
    found: list[str] = []
    for message in messages(package):
        found += _command_problems(message, options)
        found += _path_problems(message, wheel)
    return found


@pytest.fixture(scope="module")
def shipped(wheel: Path) -> set[str]:
    """What the wheel of this checkout holds."""
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_walk_reads_the_messages() -> None:
    """The strings the checks below read include known messages, and no docstring."""
    texts = {m.text for m in messages(ROOT / "corpus_tool")}
    assert any("`corpus keygen --output FILE`" in t for t in texts)  # a message with a flag
    assert any("(corpus replay --results FILE" in t for t in texts)  # one outside backticks
    assert any("corpus_tool/schemas/" in t for t in texts)  # a message with a path
    assert not any(t.startswith("The command line: parse arguments") for t in texts)


def test_every_command_flag_and_file_a_message_names_exists(shipped: set[str]) -> None:
    found = problems(ROOT / "corpus_tool", shipped)
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("planted", "said"),
    [
        ('"run `corpus frobnicate` to fix it"', "no command `corpus frobnicate`"),
        ('"rerun with `corpus check --fast-only`"', "`corpus check` has no --fast-only"),
        ('f"{name}: see `add --overwrite`"', "`corpus add` has no --overwrite"),
        ('"(corpus replay --output FILE)"', "`corpus replay` has no --output"),
        ('"see docs/replay.md for the agent contract"', "names docs/replay.md"),
        ('"the format is in README.md"', "names README.md"),
        ('"see schemas/nothing.schema.json"', "names schemas/nothing.schema.json"),
    ],
)
def test_a_planted_bad_message_fails(
    tmp_path: Path, shipped: set[str], planted: str, said: str
) -> None:
    package = tmp_path / "corpus_tool"
    shutil.copytree(ROOT / "corpus_tool", package, ignore=shutil.ignore_patterns("__pycache__"))
    with (package / "errors.py").open("a", encoding="utf-8") as module:
        module.write(f"\n\ndef planted(name: str) -> str:\n    return {planted}\n")
    [problem] = problems(package, shipped)
    assert problem.startswith("corpus_tool/errors.py:") and said in problem
