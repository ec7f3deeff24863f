"""Finding a data subject's pseudonyms in a corpus without storing the value.

`needles(value, key)` computes what the value became under the key, in a form that matches it
whatever separators or header it was written with; `holds(document, needles)` says whether a
parsed file contains one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from corpus_tool.redact.keys import RedactionKey
from corpus_tool.redact.matcher import default_matcher
from corpus_tool.redact.pseudonym import OPAQUE, Digest


def needles(value: str, key: RedactionKey) -> list[str]:
    """The compacted pseudonyms of every detected value in `value` (empty if none is found)."""
    found = []
    for hit in default_matcher().find(value):
        detector = hit.detector
        canonical = detector.canonical(value[hit.start : hit.end])
        digest = Digest(key.secret, detector.family, canonical)
        replaced = detector.pseudonym(canonical, digest)
        # Opaque secrets differ in prefix between a bare token and a header; the digest does not.
        found.append(digest.hex() if OPAQUE in replaced else compact(replaced))
    return sorted(set(found))


def holds(document: Any, wanted: Iterable[str]) -> bool:
    """True when any string, key or long number in document contains one of the needles."""
    targets = tuple(wanted)
    return any(n in compact(text) for text in _texts(document) for n in targets)


def compact(text: str) -> str:
    """Letters and digits only, so `+86 100-1234-5678` and `10012345678` meet."""
    return "".join(ch for ch in text if ch.isalnum())


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, int) and not isinstance(value, bool):
        yield str(value)
