"""Which flags a piece of text names for which `corpus` command, and which flags the real
argparse parsers of corpus_tool/cli/ define.

A command is a path of names: `("check",)`, `("waivers", "new")`; `()` is `corpus` itself (its
`-C DIR`, `--version`).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tests.docs.doc_lines import shell_words

Command = tuple[str, ...]

# `corpus [-C DIR] VERB[|VERB...] [SUB]` at the start of a command line; the top-level options
# before the verb are read apart
_LEAD = re.compile(
    r"^corpus((?:\s+\[?-C(?:\s+[^\s\]]+)?\]?)?)\s+([a-z][a-z-]*(?:\|[a-z][a-z-]*)*)"
    r"(?:\s+((?:list|new|expired|unused)(?:\|(?:list|new|expired|unused))*))?(?=\s|$)"
)
# `add --force`, `check --mode lenient`, `waivers new`: a command named without `corpus`
_BARE = re.compile(
    r"^([a-z][a-z-]*(?:\|[a-z][a-z-]*)*)(?:\s+((?:list|new|expired|unused)))?(?=\s+-|$)"
)
# a flag, and the word after it when that is no flag: `--format text|json`, `--mode lenient`
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)(?:[ =]((?!-)(?:[^\s\]|]|\|(?!-))+))?")
_CHOICES = re.compile(r"^[a-z][a-z0-9-]*(?:\|[a-z][a-z0-9-]*)*$")
# where the `corpus` command of a shell line ends: a pipe, list operator, redirect, `)`, or
# ` -- ` (what follows is another program's command line: `corpus record -- python -m agent`)
_END = re.compile(r"\s(?:\|\|?|&&|>>?|2>|--)(?:\s|$)|;\s|\)(?!\S*\])")


@dataclass(frozen=True)
class Named:
    """A flag a text names for a command."""

    command: Command
    flag: str
    values: tuple[str, ...] = ()  # the literal values shown after it: `text|json` -> text, json


@dataclass(frozen=True)
class Option:
    """An option of a parser: its option strings (aliases together) and its choices."""

    strings: frozenset[str]
    choices: frozenset[str] | None


Options = dict[Command, list[Option]]


def parser_options(top: argparse.ArgumentParser) -> Options:
    """For each command, its options as its argparse parser defines them (not -h/--help)."""
    found: Options = {}

    def walk(parser: argparse.ArgumentParser, path: Command) -> None:
        found[path] = [
            Option(
                frozenset(action.option_strings),
                frozenset(map(str, action.choices)) if action.choices else None,
            )
            for action in parser._actions
            if action.option_strings and not isinstance(action, argparse._HelpAction)
        ]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, (*path, name))

    walk(top, ())
    return found


def known(options: Options, named: Named) -> bool:
    """Whether `named` is an option of its command (`-h/--help`: of every command)."""
    helps = named.flag in ("-h", "--help") and named.command in options
    return helps or any(named.flag in o.strings for o in options.get(named.command, []))


def unknown_values(options: Options, named: Named) -> list[str]:
    """The values shown for `named` that its option does not accept (it has choices)."""
    for option in options.get(named.command, []):
        if named.flag in option.strings and option.choices is not None:
            return [value for value in named.values if value not in option.choices]
    return []


def _flags(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [
        (flag, tuple(value.split("|")) if _CHOICES.match(value) else ())
        for flag, value in _FLAG.findall(text)
    ]


def _commands(verbs: str, subs: str | None) -> list[Command]:
    return [(v, s) if s else (v,) for v in verbs.split("|") for s in (subs or "").split("|")]


def named_flags(text: str, *, bare: bool = False) -> Iterator[Named]:
    """The flags `text` names for its command: `corpus [-C DIR] VERB ... --flag ...`, or,
    with `bare`, `VERB --flag ...` (a command named in prose without `corpus`)."""
    words = " ".join(shell_words(text).split())
    lead = _LEAD.match(words)
    if lead:
        top, verbs, subs, rest = lead[1], lead[2], lead[3], words[lead.end() :]
        yield from (Named((), flag, values) for flag, values in _flags(top))
    elif bare and (lead := _BARE.match(words)):
        verbs, subs, rest = lead[1], lead[2], words[lead.end() :]
    else:  # `corpus --version`: options of `corpus` itself, no command
        if words.startswith("corpus -"):
            yield from (Named((), *found) for found in _flags(_END.split(words)[0]))
        return
    # a ` | ` inside [--a | --b] is an alternative, not a pipe
    rest = re.sub(r"\[[^\]]*\]", lambda part: part[0].replace(" | ", "|"), rest)
    rest = _END.split(rest, maxsplit=1)[0]
    for command in _commands(verbs, subs):
        yield from (Named(command, *found) for found in _flags(rest))
