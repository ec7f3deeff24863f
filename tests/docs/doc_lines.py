"""The `corpus` command lines of README.md and docs/*.md: where each stands and what kind it is.

A command line is a `corpus ...` line of a fenced block (after a `$ ` prompt where the block
shows output, after `run:` in a workflow, or after `&&`, `|`, `$(`), or an inline code span that
starts with `corpus `. A block line that makes a venv, installs and runs `.venv/bin/corpus ...`
counts as its `corpus ...` part (this checkout is installed already). Each line is one of:
- a *command*: it runs as written (in a scratch repository, tests/docs/scratch.py);
- a *synopsis*: it shows the shape of a command with placeholders a reader fills in — a word in
  capitals (`CASE`, `BASE.json`, `K/N`), `[optional parts]`, `a|b` alternatives, `...`,
  `<placeholders>` — the notation of man pages and `--help`; its flags are checked against the
  parsers (tests/docs/test_doc_flags.py), it is not run;
- a *name*: `corpus VERB` alone in prose, a command named rather than run
  (tests/docs/test_command_names.py runs `--help` on each; in a fenced block it runs);
- *illustrative*: written under an `<!-- illustrative: REASON -->` comment (the line before its
  block or paragraph), which says why it cannot run here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_MARK = re.compile(r"^\s*<!--\s*illustrative:\s*(.*?)\s*-->\s*$")  # a line of its own
_PROMPT = re.compile(r"^\s*\$ ")
# `python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/corpus ...`: install, then run
_INSTALLED = re.compile(r"(?:^|&&)\s*\S*/bin/(corpus\s.*)$")
_CONTINUED = re.compile(r"^\s+\[")  # a synopsis continued on the next line, indented
_RUN_KEY = re.compile(r"^\s*(?:-\s+)?run:\s*(?:\|\s*)?")
# `corpus` where a shell command starts: line start, after an operator or `$(`
_AT_COMMAND = re.compile(r"(?:^|&&|\|\||[;|(])\s*corpus\s", re.M)
# `corpus add: error: ...`: a message the tool printed, quoted in the docs
_MESSAGE = re.compile(r"^corpus(?: -C \S+)? [a-z-]+:")
_NAME = re.compile(r"^corpus [a-z][a-z-]*(?: (?:list|new|expired|unused))?$")
_PLACEHOLDER = re.compile(
    r"\[[^\]\s][^\]]*\]"  # [optional parts]
    r"|(?<![\s'\"])\|(?![\s|])"  # a|b alternatives (a shell pipe has spaces around it)
    r"|\.\.\.|…"  # repetition
    r"|<[a-z][^>]*>"  # <placeholder>
    r"|(?<![\w$.{/-])(?!HEAD\b)[A-Z][A-Z0-9_]*(?:\.json)?(?:/[A-Z]+)?(?![\w-])"  # CASE, BASE.json
)


@dataclass(frozen=True)
class DocLine:
    """One `corpus` command line of a doc."""

    doc: str
    number: int
    text: str
    section: str  # the heading it stands under
    block: int | None  # the fenced block it stands in (lines of one block run in one shell)
    illustrative: str | None  # the reason its marker gives

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.number}"

    @property
    def kind(self) -> str:
        if self.illustrative is not None:
            return "illustrative"
        if self.block is None and _NAME.match(self.text):
            return "name"
        if _PLACEHOLDER.search(shell_words(self.text)):
            return "synopsis"
        return "command"


def shell_words(text: str) -> str:
    """The line without what the shell gives meaning of its own: quoted strings, variables,
    `${{ }}` expressions, `[ ... ]` tests, assignments and a trailing comment."""
    text = re.sub(r"\$\{\{.*?\}\}|\$\{?\w+\}?", "", text)
    text = re.sub(r"\"[^\"]*\"|'[^']*'", "''", text)
    text = re.sub(r"(?:^|\s)#.*", "", text)
    text = re.sub(r"\b[A-Za-z_]\w*=", "", text)
    return re.sub(r"\[\[? .*? \]\]?", "", text)


def docs(root: Path) -> list[Path]:
    """README.md and docs/*.md."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def command_lines(root: Path, doc: Path) -> list[DocLine]:
    """Every `corpus` command line of `doc`, fenced or inline, in order."""
    name = doc.relative_to(root).as_posix()
    lines = doc.read_text(encoding="utf-8").splitlines()
    sections = _sections(lines)
    found = [*_fenced(name, lines, sections), *_inline(name, lines, sections)]
    return sorted(found, key=lambda line: line.number)


def _sections(lines: list[str]) -> list[str]:
    """The heading each line stands under (fenced lines starting with # are no heading)."""
    fenced = _fenced_indices(lines)
    current, found = "", []
    for index, line in enumerate(lines):
        if index not in fenced and re.match(r"#{1,6} ", line):
            current = line.lstrip("#").strip()
        found.append(current)
    return found


def _marker(lines: list[str], index: int) -> str | None:
    """The reason of an illustrative marker on its own line before the paragraph (or block)
    that holds line `index`."""
    before = index - 1
    while before >= 0 and lines[before].strip() and not _MARK.search(lines[before]):
        before -= 1  # up to the paragraph's start
    found = _MARK.search(lines[before]) if before >= 0 else None
    return found.group(1) if found else None


def _blocks(lines: list[str]) -> Iterator[tuple[int, int]]:
    """(opening line index, closing line index) of each fenced block."""
    opened: int | None = None
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            if opened is None:
                opened = index
            else:
                yield opened, index
                opened = None


def _fenced_indices(lines: list[str]) -> set[int]:
    return {i for opened, closed in _blocks(lines) for i in range(opened, closed + 1)}


def _block_commands(lines: list[str], opened: int, closed: int) -> list[tuple[int, str]]:
    """(line index, command text) of the `corpus` lines of one fenced block."""
    prompted = any(_PROMPT.match(line) for line in lines[opened + 1 : closed])
    commands: list[tuple[int, str]] = []
    for index in range(opened + 1, closed):
        line = lines[index]
        if prompted and not _PROMPT.match(line):
            continue  # output shown under a `$ ` prompt
        text = _RUN_KEY.sub("", _PROMPT.sub("", line)).strip()
        installed = _INSTALLED.search(text)
        text = installed[1] if installed else text  # the install is the user's, not ours
        if commands and _CONTINUED.match(line):
            commands[-1] = (commands[-1][0], f"{commands[-1][1]} {text}")
        elif _AT_COMMAND.search(text) and not _MESSAGE.match(text):
            commands.append((index, text))
    return commands


def _fenced(name: str, lines: list[str], sections: list[str]) -> Iterator[DocLine]:
    for opened, closed in _blocks(lines):
        reason = _marker(lines, opened)
        for index, text in _block_commands(lines, opened, closed):
            yield DocLine(name, index + 1, text, sections[index], opened, reason)


def prose(lines: list[str]) -> str:
    """The doc with its fenced blocks blanked (line numbers kept): where inline code lives."""
    fenced = _fenced_indices(lines)
    return "\n".join("" if i in fenced else line for i, line in enumerate(lines))


def _inline(name: str, lines: list[str], sections: list[str]) -> Iterator[DocLine]:
    inline = prose(lines)
    for span in SPAN.finditer(inline):
        text = " ".join(span.group(2).replace("\\|", "|").split())
        if "\n\n" in span.group(2) or not text.startswith("corpus ") or _MESSAGE.match(text):
            continue
        index = inline.count("\n", 0, span.start())
        yield DocLine(name, index + 1, text, sections[index], None, _marker(lines, index))
