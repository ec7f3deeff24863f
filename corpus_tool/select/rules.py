"""The impact rules of corpus.yaml: which changed repository paths select which cases."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from corpus_tool.model.config import ImpactRule, ImpactSection, Unmapped


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex for a path glob: `**` crosses directories, `*` and `?` stay inside one."""
    glob = pattern.strip().lstrip("/").removeprefix("./").rstrip("/")
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            piece, i = _one(glob, i)
            out.append(piece)
    return re.compile("".join(out))


def _one(glob: str, i: int) -> tuple[str, int]:
    char = glob[i]
    if char == "*":
        return "[^/]*", i + 1
    if char == "?":
        return "[^/]", i + 1
    if char == "[":
        end = glob.find("]", i + 2)
        if end > 0:
            inner = glob[i + 1 : end]
            inner = "^" + inner[1:] if inner.startswith("!") else inner
            return f"[{inner.replace(chr(92), chr(92) * 2)}]", end + 1
    return re.escape(char), i + 1


def path_matches(pattern: re.Pattern[str], path: str) -> bool:
    """True when the glob names the path or one of its directories (so `src/tools` works)."""
    if pattern.fullmatch(path):
        return True
    parts = path.split("/")
    return any(pattern.fullmatch("/".join(parts[:cut])) for cut in range(len(parts) - 1, 0, -1))


@dataclass(frozen=True)
class Rule:
    """One `impact.rules` entry: changed paths -> tools, tags, case-id globs, or everything."""

    index: int
    paths: tuple[str, ...]
    tools: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    all: bool = False

    @property
    def patterns(self) -> tuple[re.Pattern[str], ...]:
        return _compiled(self.paths)

    def matches(self, path: str) -> bool:
        """True when a changed repository path falls under one of the rule's globs."""
        return any(path_matches(pattern, path) for pattern in self.patterns)

    def describe(self) -> str:
        """How reports name the rule: its place in corpus.yaml and what it selects."""
        said = [f"{key} {', '.join(values)}" for key, values in self.selectors() if values]
        if self.all:
            said.append("all")
        return f"impact.rules[{self.index}] ({'; '.join(said) or 'selects nothing'})"

    def selectors(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return (("tools", self.tools), ("tags", self.tags), ("cases", self.cases))


@functools.cache
def _compiled(paths: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    # Compiled once per glob tuple: every changed file is matched against every rule.
    return tuple(glob_regex(p) for p in paths)


@dataclass(frozen=True)
class Impact:
    """corpus.yaml `impact`: the rules in order, and what an unmapped file selects."""

    rules: tuple[Rule, ...] = ()
    unmapped: Unmapped = "all"

    @classmethod
    def from_config(cls, impact: ImpactSection) -> Impact:
        """The compiled form of corpus.yaml's `impact`."""
        rules = tuple(_rule(i, entry) for i, entry in enumerate(impact.rules))
        return cls(rules, impact.unmapped)

    def matching(self, path: str) -> list[Rule]:
        """Every rule naming the path (all of them apply, not just the first)."""
        return [rule for rule in self.rules if rule.matches(path)]


def _rule(index: int, entry: ImpactRule) -> Rule:
    return Rule(index, entry.paths, entry.tools, entry.tags, entry.cases, entry.all)
