"""The shipped JSON Schemas, validators built once per process, findings with JSON paths."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

KINDS = ("trace", "expected", "waiver", "corpus")
CURRENT_VERSION = {kind: 1 for kind in KINDS}


def schema_dir() -> Path:
    """Where the schemas are: inside the installed package, or at the top of a source checkout."""
    package = Path(__file__).resolve().parents[1]
    packaged = package / "schemas"
    if (packaged / "trace.schema.json").is_file():
        return packaged
    return package.parent / "schemas"


@functools.cache
def load_schema(kind: str) -> dict[str, Any]:
    """The parsed schema document of `kind` (trace, expected, waiver, corpus)."""
    with (schema_dir() / f"{kind}.schema.json").open(encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


@functools.cache
def validator(kind: str) -> Draft202012Validator:
    """A validator for `kind`, built once per process."""
    # imported here: jsonschema takes longer to import than most commands take to run, and
    # `corpus init`, `keygen` and the JSON-path helpers never validate
    from jsonschema import Draft202012Validator

    return Draft202012Validator(
        load_schema(kind), format_checker=Draft202012Validator.FORMAT_CHECKER
    )


def errors(kind: str, document: Any, plain: bool = False) -> list[ValidationError]:
    """Schema errors of a document, most specific first, in a stable order.

    `plain`: the document holds only what JSON holds (dicts with string keys, lists, strings,
    numbers, booleans, None), as the YAML loader's fast path builds it. The compiled validator
    then answers for the valid ones, tens of times faster; the errors of an invalid one always
    come from `jsonschema`, so messages and paths are the same either way.
    """
    if plain and _compiled_valid(kind, document):
        return []
    return _sorted_errors(validator(kind), document)


def first_problem(kind: str, document: Any, plain: bool = False) -> str | None:
    """`$.path: message` of a document's first schema error (in errors()' order); None when
    it is valid. `plain` as for errors(): JSON-parsed documents always are."""
    problems = errors(kind, document, plain)
    if not problems:
        return None
    return f"{json_path(problems[0].absolute_path)}: {problems[0].message}"


def part_errors(kind: str, prop: str, value: Any) -> list[ValidationError]:
    """Schema errors of one top-level property's value (expected.yaml's `expect`), with paths
    relative to it: for callers that hold a part of a document, not a file."""
    return _sorted_errors(_part_validator(kind, prop), value)


def items_errors(
    kind: str, prop: str, items: list[Any], plain: bool | None = None
) -> list[ValidationError]:
    """Schema errors of some items of a top-level list property (a streamed trace's events,
    a batch at a time), paths relative to `items`; the compiled validator answers for valid
    plain ones (`is_plain`, as for errors(); `plain` is its answer if the caller knows it).
    The errors are those errors() gives at the items' place in the whole document."""
    if plain is None:
        plain = is_plain(items)
    check = _compiled_part(kind, prop) if plain else None
    if check is not None:
        try:
            if check(items):
                return []
        except (ValueError, TypeError, OverflowError, RecursionError):
            pass
    return part_errors(kind, prop, items)


@functools.cache
def _compiled_part(kind: str, prop: str) -> Callable[[Any], bool] | None:
    try:
        import jsonschema_rs
    except ImportError:
        return None
    whole = load_schema(kind)
    part = {
        "$schema": whole["$schema"],
        "$defs": whole.get("$defs", {}),
        **whole["properties"][prop],
    }
    check: Callable[[Any], bool] = jsonschema_rs.validator_for(part).is_valid
    return check


@functools.cache
def _part_validator(kind: str, prop: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    whole = load_schema(kind)
    part = {"$defs": whole.get("$defs", {}), **whole["properties"][prop]}
    return Draft202012Validator(part, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _sorted_errors(checker: Draft202012Validator, document: Any) -> list[ValidationError]:
    found = []
    for error in checker.iter_errors(document):
        found.extend(_leaves(error))
    return sorted(found, key=lambda e: (path_key(e.absolute_path), e.message))


def _compiled_valid(kind: str, document: Any) -> bool:
    """True only when the compiled validator finds the document valid.

    It is never more lenient than `jsonschema` on plain documents (its regexes are stricter:
    `$` is the end of the text, `\\d` and `\\w` are ASCII), so "valid" here is valid there;
    anything it cannot read or refuses goes to `jsonschema`, which decides.
    """
    check = compiled(kind)
    if check is None:
        return False
    try:
        return bool(check(document))
    except (ValueError, TypeError, OverflowError, RecursionError):
        return False


@functools.cache
def compiled(kind: str) -> Callable[[Any], bool] | None:
    """The compiled (jsonschema-rs) validity check of `kind`; None where it is not installed."""
    try:
        import jsonschema_rs
    except ImportError:  # a platform without its wheel: jsonschema alone, slower, same findings
        return None
    check: Callable[[Any], bool] = jsonschema_rs.validator_for(load_schema(kind)).is_valid
    return check


def _leaves(error: ValidationError) -> list[ValidationError]:
    # if/then and allOf wrap the useful message; report the innermost ones.
    if error.context and error.validator in ("allOf", "anyOf", "oneOf"):
        return [leaf for sub in error.context for leaf in _leaves(sub)]
    return [error]


def path_key(path: Any) -> tuple[str, ...]:
    """The order errors() sorts paths in."""
    return tuple(f"{p:08d}" if isinstance(p, int) else str(p) for p in path)


def json_path(parts: Any) -> str:
    """Render a path as `$.events[2].tool`."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def version_problem(kind: str, document: Any) -> str | None:
    """Say why a document's schema_version cannot be read by this tool, if it cannot."""
    if not isinstance(document, dict):
        return None
    version = document.get("schema_version")
    current = CURRENT_VERSION[kind]
    if isinstance(version, int) and not isinstance(version, bool):
        if version > current:
            return (
                f"schema_version {version} is newer than this corpus-tool knows ({current}); "
                "upgrade corpus-tool"
            )
        if version < current:
            return _older(kind, version, current)
    return None


def _older(kind: str, version: int, current: int) -> str:
    """Point at `corpus migrate` only when it can upgrade this file (a shipped step exists)."""
    from corpus_tool.io import migrations

    if migrations.REGISTERED.path(kind, version, current) is not None:
        return f"schema_version {version} is older than {current}; run `corpus migrate`"
    return (
        f"schema_version {version} is older than {current}, and no corpus-tool step upgrades "
        f"{kind} files from it; write the file anew (corpus-tool files start at version 1)"
    )


_JSON_SCALARS = frozenset((str, int, float, bool, type(None)))


def is_plain(doc: Any) -> bool:
    """True when `doc` holds only what JSON holds (dicts with string keys, lists, scalars):
    the compiled schema check may then answer for it (errors(), items_errors())."""
    stack = [doc]
    # bound once, and a dict's keys told by a loop, not all() over a generator: a streamed
    # add walks every event, and the call per key was most of this walk's time
    pop, extend, scalars = stack.pop, stack.extend, _JSON_SCALARS
    while stack:
        value = pop()
        kind = type(value)
        if kind in scalars:
            continue
        if kind is dict:
            for key in value:
                if type(key) is not str:
                    return False
            extend(value.values())
        elif kind is list:
            extend(value)
        else:
            return False
    return True
