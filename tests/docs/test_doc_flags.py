"""The flags the docs name are the flags the commands have, and every flag is documented.

Both sides come from outside the docs: the flags are read from the argparse parsers the `corpus`
command itself builds (corpus_tool/cli/), and the docs are README.md and docs/*.md as a reader
sees them — every `corpus ...` line (commands, synopses such as the README's command table,
illustrative ones) and every command named in prose without `corpus` (`add --force`).
"""

from __future__ import annotations

import argparse
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus_tool.cli import parser
from tests.conftest import ROOT
from tests.docs.doc_lines import SPAN, command_lines, docs, prose
from tests.docs.flags import Named, known, named_flags, parser_options, unknown_values


def mentions(root: Path) -> Iterator[tuple[str, Named]]:
    """(where, flag named for a command) for every flag the docs name for a command."""
    for doc in docs(root):
        for line in command_lines(root, doc):
            for named in named_flags(line.text):
                yield line.where, named
        name = doc.relative_to(root).as_posix()
        text = prose(doc.read_text(encoding="utf-8").splitlines())
        for span in SPAN.finditer(text):
            number = text.count("\n", 0, span.start()) + 1
            words = " ".join(span[2].replace("\\|", "|").split())
            if not words.startswith("corpus "):  # those are command lines, read above
                for named in named_flags(words, bare=True):
                    yield f"{name}:{number}", named


def unknown_flags(top: argparse.ArgumentParser, root: Path) -> list[str]:
    """Flags the docs name that the command's parser does not define, and values shown for a
    flag with choices that it does not accept."""
    options = parser_options(top)
    found = []
    for where, named in mentions(root):
        command = f"`corpus {' '.join(named.command)}`"
        if named.command not in options:
            continue  # another program's flag (`pytest -k`), or no command at all
        if not known(options, named):
            found.append(f"{where}: {command} has no {named.flag}")
        found += [
            f"{where}: {command} {named.flag} takes no {value}"
            for value in unknown_values(options, named)
        ]
    return found


def undocumented_flags(top: argparse.ArgumentParser, root: Path) -> list[str]:
    """Options of the parsers that no doc names for their command."""
    documented = {(named.command, named.flag) for _, named in mentions(root)}
    return [
        f"`corpus {' '.join(command)}` {'/'.join(sorted(option.strings))} is in --help but "
        "in no doc"
        for command, found in parser_options(top).items()
        for option in found
        if not any((command, flag) in documented for flag in option.strings)
    ]


def test_the_walk_reads_the_command_table_and_prose() -> None:
    """What must be found is found, or the tests below would pass on nothing."""
    found = {(named.command, named.flag) for _, named in mentions(ROOT)}
    assert (("add",), "--keep-going") in found  # the README's command table
    assert (("waivers", "new"), "--reason") in found  # docs/gate.md's table
    assert (("check",), "--mode") in found and (("replay",), "--diff") in found  # prose
    assert ((), "-C") in found
    assert len(found) > 80


def test_every_flag_a_doc_names_exists() -> None:
    problems = unknown_flags(parser(), ROOT)
    assert not problems, "\n".join(problems)


def test_every_flag_in_help_is_documented() -> None:
    problems = undocumented_flags(parser(), ROOT)
    assert not problems, "\n".join(problems)


def _docs_copy(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


@pytest.mark.parametrize(
    "planted",
    [
        "Run `corpus check --fast-only` first.",
        "```sh\ncorpus -C evals affected --base main --since yesterday\n```",
        "| `corpus waivers new CASE --check NAME --reason TEXT [--approver NAME]` | ... |",
        "Then `gate --quick` does it.",
        "Machines read `corpus validate --format xml`.",
        "| `corpus check [--tier fast\\|nightly]` | ... |",
    ],
)
def test_a_doc_naming_a_flag_that_does_not_exist_fails(tmp_path: Path, planted: str) -> None:
    root = _docs_copy(tmp_path)
    with (root / "docs/gate.md").open("a", encoding="utf-8") as doc:
        doc.write(f"\n{planted}\n")
    [problem] = unknown_flags(parser(), root)
    wrong = re.findall(r"has no --[\w-]+|takes no \w+$", problem)
    assert problem.startswith("docs/gate.md:") and wrong, problem
    assert wrong[0].split()[-1].lstrip("-") in planted


def test_a_flag_in_help_that_no_doc_names_fails() -> None:
    top = parser()  # the real parsers, one option added to `corpus status`
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    sub.choices["status"].add_argument("--since", help="a flag nobody wrote down")
    assert undocumented_flags(top, ROOT) == ["`corpus status` --since is in --help but in no doc"]
