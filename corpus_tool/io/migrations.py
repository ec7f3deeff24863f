"""Schema migrations (version n -> n+1 of one kind of file) and the round trip that applies them.

A migration edits a ruamel.yaml round-trip mapping in place, so comments, key order and quoting of
a reviewed file survive; `upgrade_text` applies every migration from a file's `schema_version` to
the current one and sets the version after each. No migration exists yet (every kind is at version
1); the first schema change adds one here with `REGISTERED.add(...)`.
"""

from __future__ import annotations

import io
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.io.yaml_quote import round_trip

Upgrade = Callable[[MutableMapping[str, Any]], None]
"""Edits a document of version n into version n+1, in place."""


@dataclass(frozen=True)
class Migration:
    """One migration: a `kind` of file (trace, expected, waiver, corpus) up to `version`."""

    kind: str
    version: int  # the version the migration produces (from version - 1)
    upgrade: Upgrade
    note: str = ""


@dataclass(frozen=True)
class Migrations:
    """The registry of migrations; `add` returns a new registry (the shipped one stays as it is)."""

    migrations: tuple[Migration, ...] = ()

    def add(self, migration: Migration) -> Migrations:
        if any(
            m.kind == migration.kind and m.version == migration.version for m in self.migrations
        ):
            raise ValueError(f"a {migration.kind} migration to version {migration.version} exists")
        return Migrations((*self.migrations, migration))

    def path(self, kind: str, start: int, target: int) -> list[Migration] | None:
        """The migrations from `start` up to `target`, in order; None when one is missing."""
        found = {m.version: m for m in self.migrations if m.kind == kind}
        chain = [found.get(v) for v in range(start + 1, target + 1)]
        return None if any(s is None for s in chain) else [s for s in chain if s is not None]


REGISTERED = Migrations()
"""The migrations this corpus-tool ships (none yet)."""


def upgrade_text(
    text: str, kind: str, target: int, migrations: Migrations, where: str
) -> tuple[str, int] | None:
    """The file upgraded to `target` and the version it had; None when it is at `target`."""
    yaml = _yaml(STYLES[0])
    try:
        data = yaml.load(text)
    except Exception as err:  # ruamel raises many types; each is "not valid YAML" here
        raise InputError(f"not valid YAML: {' '.join(str(err).split())[:200]}", where) from None
    if not isinstance(data, MutableMapping):
        raise InputError(f"a {kind} file must be a mapping", where)
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise InputError("has no integer schema_version; see `corpus validate`", where)
    if version > target:
        raise InputError(
            f"schema_version {version} is newer than this corpus-tool knows ({kind} files up "
            f"to {target}): a newer corpus-tool wrote it; upgrade corpus-tool to read it",
            where,
        )
    if version == target:
        return None
    chain = migrations.path(kind, version, target)
    if chain is None:
        raise InputError(
            f"schema_version {version}: this corpus-tool has no upgrade of {kind} files from "
            f"it to {target}",
            where,
        )
    style = _style(data, text)
    for migration in chain:
        migration.upgrade(data)
        data["schema_version"] = migration.version
    return _dump(data, style), version


Style = tuple[int, int, int, int]
STYLES: tuple[Style, ...] = ((2, 2, 0, 100), (2, 4, 2, 4096), (2, 2, 0, 4096), (2, 4, 2, 100))
"""(mapping indent, sequence indent, sequence offset, line width): PyYAML's trace.yaml, the
drafted expected.yaml, and hand-written files; a file is written back in the style it has."""


def _style(data: Any, text: str) -> Style:
    """The indent style that writes the unchanged document back byte for byte (else closest)."""
    import difflib

    def likeness(style: Style) -> float:
        return difflib.SequenceMatcher(None, _dump(data, style), text).ratio()

    exact = [s for s in STYLES if _dump(data, s) == text]
    return exact[0] if exact else max(STYLES, key=likeness)


def _dump(data: Any, style: Style) -> str:
    out = io.StringIO()
    _yaml(style).dump(data, out)
    return out.getvalue()


def _yaml(style: Style) -> Any:
    # quoting what a YAML 1.1 or 1.2 reader would misread; `null` as corpus files spell it
    yaml = round_trip(spell_null=True)
    yaml.preserve_quotes = True
    mapping, sequence, offset, yaml.width = style
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    return yaml
