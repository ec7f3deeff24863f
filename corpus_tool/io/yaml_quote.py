"""Which strings a YAML writer must quote: those a YAML reader would take for something else.

corpus-tool reads YAML 1.1 (PyYAML), where `no`, `on`, `y` are booleans and `12:30:00` is an
integer; editors, CI tools and ruamel.yaml read YAML 1.2, where `1e3` is a float and `0o17`
an integer. A string is written plain only when every one of those readers takes it back as
the same string, so `id: no` can never come back as `false`. Each writer asks `is_plain_safe`
(files.dump_yaml, files.with_top_value, the drafted expected.yaml, migrate).

The readers' own resolvers decide (PyYAML's, and ruamel.yaml's for 1.1 and 1.2), not a copy of
their rules: a string starting with a character none of them has a rule for is safe at once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

import yaml

STR = "tag:yaml.org,2002:str"


class _Readers(NamedTuple):
    first: frozenset[str]  # characters some implicit rule starts with
    resolvers: tuple[Any, ...]  # (resolver, its ScalarNode class) pairs
    rules: dict[str, re.Pattern[str]]  # first character -> every reader's rules, as one


def is_plain_safe(text: str) -> bool:
    """True when `text` written plain reads back as this string in YAML 1.1 and 1.2."""
    if text and text[0] not in _readers().first:
        return True
    if len(text) <= 1024:  # remembered: a trace repeats its strings (each model call re-sends
        return _remembered(text)  # the conversation); short ones only, to bound the memory
    return _resolves_to_str(text)


@functools.lru_cache(maxsize=1 << 12)
def _remembered(text: str) -> bool:
    return _resolves_to_str(text)


def _resolves_to_str(text: str) -> bool:
    """is_plain_safe's answer from the readers' resolvers: a plain scalar is a string when no
    implicit rule for its first character (nor a rule for any) matches it, as each resolver
    decides (none of them has a rule whose tag is str); the rules asked directly, all three
    readers' at once, without each resolver's per-call overhead."""
    readers = _readers()
    if not text:
        return all(
            str(resolver.resolve(node, text, (True, False))) == STR
            for resolver, node in readers.resolvers
        )
    rule = readers.rules.get(text[0])
    return rule is None or rule.match(text) is None


@functools.cache
def _readers() -> _Readers:
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.resolver import VersionedResolver

    pyyaml = yaml.resolver.Resolver()
    ruamel = [VersionedResolver(version=v) for v in ((1, 1), (1, 2))]
    first = set(pyyaml.yaml_implicit_resolvers)
    for resolver in ruamel:
        first.update(resolver.versioned_resolver)
    first.discard(None)  # the rule for the empty string, which is always checked
    pairs = ((pyyaml, yaml.ScalarNode), *((r, ScalarNode) for r in ruamel))
    tables = [pyyaml.yaml_implicit_resolvers, *(r.versioned_resolver for r in ruamel)]
    rules = {
        c: _any_of(
            dict.fromkeys(
                regexp
                for table in tables
                for _tag, regexp in [*table.get(c, []), *table.get(None, [])]
            )
        )
        for c in first
        if isinstance(c, str) and c
    }
    return _Readers(frozenset(c for c in first if isinstance(c, str)), pairs, rules)


def _any_of(rules: Iterable[re.Pattern[str]]) -> re.Pattern[str]:
    """One pattern that matches at a string's start where any of `rules` does (each keeps its
    own flags, in a scoped group: the readers' patterns are verbose ones): one call, not one
    per rule. The rules have no groups, so none is renumbered."""
    parts = []
    for rule in rules:
        if rule.groups or rule.flags & ~(re.X | re.U):
            raise ValueError(f"a resolver pattern this cannot combine: {rule.pattern!r}")
        parts.append(("(?x:" if rule.flags & re.X else "(?:") + rule.pattern + ")")
    return re.compile("|".join(parts))


def round_trip(spell_null: bool = False) -> Any:
    """A ruamel.yaml round-trip YAML that writes a string plain only when `is_plain_safe`.

    What it reads stays as written: a plain scalar that a 1.2 reader takes for a string but
    a 1.1 reader does not (`on`, `no`) is written back plain, so a file keeps its meaning to
    corpus-tool; a new string a program puts in is quoted when it needs to be. `spell_null`
    writes None as `null` (ruamel leaves the value empty).
    """
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.Representer, yaml.Constructor = _ruamel_classes()[1 if spell_null else 0]
    return yaml


@functools.cache
def _ruamel_classes() -> tuple[tuple[type, type], tuple[type, type]]:
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.representer import RoundTripRepresenter
    from ruamel.yaml.scalarstring import PlainScalarString

    def represent_str(representer: Any, value: str) -> Any:
        if "\n" not in value and not is_plain_safe(value):
            return representer.represent_scalar(STR, value, style="'")
        return representer.represent_str(value)

    def represent_null(representer: Any, value: None) -> Any:
        return representer.represent_scalar("tag:yaml.org,2002:null", "null")

    def construct_str(constructor: Any, node: Any) -> Any:
        value = RoundTripConstructor.construct_yaml_str(constructor, node)
        if type(value) is str and node.style is None and not is_plain_safe(value):
            return PlainScalarString(value)  # written back plain, as it was read
        return value

    class Quoting(RoundTripRepresenter):
        """Quotes a str that some reader would take for another type."""

    class Null(Quoting):
        """...and spells None `null`."""

    class Keeping(RoundTripConstructor):
        """Marks plain scalars that only a 1.2 reader takes for strings."""

    Quoting.add_representer(str, represent_str)
    Null.add_representer(type(None), represent_null)
    Keeping.add_constructor(STR, construct_str)
    return (Quoting, Keeping), (Null, Keeping)
