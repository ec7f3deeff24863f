"""One corpus, one key: the key id a corpus's cases carry, and deliberate rotations.

Pseudonyms link records only under one key: a case redacted under a second key holds other
pseudonyms for the same person, and `corpus forget` run with one key cannot find the other's.
So `corpus add` refuses a key whose id differs from the corpus's. The corpus's key id is
`redaction.key_id` in corpus.yaml when it names one (a rotation, reviewed like any config
change), else the one its cases carry. After a rotation, validation reports every case still
under an older key, until `corpus add --force` re-adds its incident under the current one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from corpus_tool.errors import CorpusError
from corpus_tool.io import files
from corpus_tool.redact.keys import RedactionKey
from corpus_tool.store.corpus import Corpus

SHOW_ID = "`corpus keygen --show-id` prints the id of the key you have set"


class KeyedTrace(NamedTuple):
    """A key id and the trace that carries it."""

    key_id: str
    trace: Path


def trace_key_id(data: Any) -> str | None:
    """The key id a parsed trace.yaml records (`redaction.key_id`), if it records one."""
    record = data.get("redaction") if isinstance(data, Mapping) else None
    value = record.get("key_id") if isinstance(record, Mapping) else None
    return value if isinstance(value, str) and value else None


def recorded_key_id(corpus: Corpus) -> KeyedTrace | None:
    """The key id of the corpus's cases: the first case (by id) whose trace records one.

    One trace is enough: `add` keeps every case on one key, and `validate` of the whole
    corpus reports a corpus whose cases carry several.
    """
    for case_id in corpus.case_ids():
        path = corpus.cases_dir / case_id / "trace.yaml"
        try:
            raw = files.read_bytes(path, within=corpus.root)
            found = trace_key_id(files.parse_yaml(raw, path))
        except CorpusError:  # a broken or missing trace is validate's to report
            continue
        if found:
            return KeyedTrace(found, path)
    return None


def check_key(key: RedactionKey, corpus: Corpus) -> None:
    """Refuse a key other than the corpus's: a CorpusError naming both key ids."""
    current = corpus.config.redaction.key_id
    if current is not None:
        if key.key_id != current:
            raise CorpusError(
                f"the redaction key from {key.source} has id {key.key_id}, but corpus.yaml "
                f"names {current} as the corpus key (redaction.key_id): use the key whose id "
                f"is {current} ({SHOW_ID})"
            )
        return
    recorded = recorded_key_id(corpus)
    if recorded is not None and recorded.key_id != key.key_id:
        where = recorded.trace.relative_to(corpus.root)
        raise CorpusError(
            f"the redaction key from {key.source} has id {key.key_id}, but the corpus's cases "
            f"were redacted under {recorded.key_id} ({where}): one corpus takes one key, or "
            f"pseudonyms no longer match. Use the key whose id is {recorded.key_id} "
            f"({SHOW_ID}); to rotate on purpose, set `redaction: {{key_id: {key.key_id}}}` "
            "in corpus.yaml and re-add every case with `corpus add --force`"
        )


def old_key_message(old: str, current: str) -> str:
    """What validation says of a case still under an older key."""
    return (
        f"redacted under key {old}, not the current key {current} (corpus.yaml "
        "redaction.key_id); re-add its incident with `corpus add --force` to move it to the "
        "current key"
    )


def split_message(by_key: Mapping[str, list[str]]) -> str:
    """What validation says of a corpus whose cases carry several key ids and names none."""
    counts = ", ".join(f"{key_id} ({_cases(names)})" for key_id, names in sorted(by_key.items()))
    return (
        f"the cases carry {len(by_key)} redaction keys: {counts}; name the current one in "
        "corpus.yaml (`redaction: {key_id: ...}`) and re-add the cases under the others with "
        "`corpus add --force`"
    )


def _cases(names: list[str], most: int = 3) -> str:
    shown = ", ".join(sorted(names)[:most])
    more = f", ... {len(names)} in all" if len(names) > most else ""
    return f"{len(names)} case{'s' if len(names) != 1 else ''}: {shown}{more}"
