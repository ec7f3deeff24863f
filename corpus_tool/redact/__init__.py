"""Redaction: keyed pseudonyms for personal data and secrets, and the scan that enforces them.

    key = load_key(corpus.config.redaction, corpus.root, os.environ)   # CorpusError without one
    clean, replaced = redact(trace, key, drop_keys)          # at `corpus add`
    hits = scan(document, drop_keys)                         # at `corpus validate`
    for line, comment in yaml_comments(text): scan(comment)  # comments the parser drops

The pseudonym grammar is in `corpus_tool.redact.pseudonym`, the detectors in
`corpus_tool.redact.detectors` (one module each), the allow-list in `allowlist`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from corpus_tool.model.config import DEFAULT_KEY_ENV
from corpus_tool.redact.allowlist import AllowList, fingerprint
from corpus_tool.redact.comments import yaml_comments
from corpus_tool.redact.detectors import DETECTORS, SECRET_KEY, URL_PASSWORD, Detector, by_name
from corpus_tool.redact.forget import holds, needles
from corpus_tool.redact.keys import RedactionKey, keygen, load_key, write_key_file
from corpus_tool.redact.pseudonym import MARKER, Digest
from corpus_tool.redact.scanner import RawHit, Walk

POLICY = 2
"""Version of the redaction policy recorded in trace.yaml (`redaction.policy`)."""

__all__ = [
    "DEFAULT_KEY_ENV", "DETECTORS", "MARKER", "POLICY", "SECRET_KEY", "AllowList", "RawHit",
    "RedactedValue", "RedactionKey", "Redactor", "detector_names", "fingerprint", "holds", "keygen",
    "load_key", "needles", "pseudonym", "redact", "scan", "write_key_file",
    "yaml_comments",
]  # fmt: skip


class RedactedValue(NamedTuple):
    """A redacted value and how many values were replaced or dropped in it."""

    value: Any
    replaced: int


@dataclass(frozen=True)
class Redactor:
    """What `corpus add` redacts with, made once per command: the corpus key, the names whose
    values are always dropped, the allow-list (values reviewed as not personal data)."""

    key: RedactionKey
    drop_keys: tuple[str, ...] = ()
    allow: AllowList | None = None

    def __call__(self, value: Any) -> RedactedValue:
        return redact(value, self.key, self.drop_keys, self.allow)

    def told(self, value: Any, own: bool = False) -> tuple[RedactedValue, bool]:
        """The redacted value, and whether `value` held only what JSON holds (so the result
        does too: schema.is_plain's answer without its walk). `own`: the caller gives
        `value` up, and its dicts and lists are changed in place (the result is `value`);
        only for a value as json parses it, no dict or list in two places (one met twice
        would be walked again already redacted, and its hits counted once)."""
        return _redacted(value, self.key, self.drop_keys, self.allow, own)


def redact(
    value: Any,
    key: RedactionKey,
    drop_keys: Iterable[str] = (),
    allow: AllowList | None = None,
) -> RedactedValue:
    """Replace every detected value in a JSON-like value by its pseudonym; a value the
    allow-list names (a reviewed redaction waiver: not personal data) stays as it is."""
    return _redacted(value, key, drop_keys, allow, False)[0]


def _redacted(
    value: Any, key: RedactionKey, drop_keys: Iterable[str], allow: AllowList | None, own: bool
) -> tuple[RedactedValue, bool]:
    cache: dict[tuple[str, str], tuple[str, bool]] = {}  # -> (what is written, allowed)
    kept = 0

    def rewrite(text: str, detector: Detector) -> str:
        nonlocal kept
        known = cache.get((detector.name, text))
        if known is None:
            allowed = allow is not None and allow.keeps(text, detector.name)
            known = (text, True) if allowed else (_pseudonym(text, detector, key), False)
            cache[(detector.name, text)] = known
        kept += known[1]
        return known[0]

    walk = Walk(rewrite, drop_keys, own=own)
    clean = walk.value(value)
    return RedactedValue(clean, len(walk.hits) - kept), walk.plain_input


def scan(value: Any, drop_keys: Iterable[str] = ()) -> list[RawHit]:
    """Every unredacted value in a JSON-like value; pseudonyms and markers are not reported."""
    walk = Walk(None, drop_keys)
    walk.value(value)
    return walk.hits


def pseudonym(value: str, kind: str, key: RedactionKey) -> str:
    """The pseudonym of one raw value of a kind (a detector name) under key."""
    return _pseudonym(value, by_name(kind), key)


def detector_names() -> list[str]:
    """Every rule name a scan can report, without the `redaction.` prefix."""
    return [d.name for d in DETECTORS] + [SECRET_KEY, URL_PASSWORD]


def _pseudonym(text: str, detector: Detector, key: RedactionKey) -> str:
    return detector.pseudonym(text, Digest(key.secret, detector.family, detector.canonical(text)))
