"""Finding a data subject's pseudonyms in a corpus without storing the value.

`needles(value, key)` computes what the value became under the key, in a form that matches it
whatever separators or header it was written with; `holds(document, needles)` says whether a
parsed file contains one.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from corpus_tool.redact.checksums import iban_check_digits, luhn_digit
from corpus_tool.redact.keys import RedactionKey
from corpus_tool.redact.matcher import default_matcher
from corpus_tool.redact.normalize import view
from corpus_tool.redact.pseudonym import OPAQUE, Digest, zero_at


def needles(value: str, key: RedactionKey) -> list[str]:
    """The compacted pseudonyms of every detected value in `value` (empty if none is found),
    read in its normalized view as `add` reads a trace, so any spelling finds every spelling."""
    seen = view(value)
    text = value if seen is None else seen.text
    found = []
    for hit in default_matcher().find(text):
        detector = hit.detector
        canonical = detector.canonical(text[hit.start : hit.end])
        digest = Digest(key.secret, detector.family, canonical)
        replaced = detector.pseudonym(canonical, digest)
        # Opaque secrets differ in prefix between a bare token and a header; the digest does not.
        found.append(digest.hex() if OPAQUE in replaced else compact(replaced))
        found.extend(_policy_one(detector.family, canonical, digest))
    return sorted(set(found))


_CARD_GROUPS = ((), (4, 4, 4, 4), (4, 6))
"""Groupings whose policy-1 card pseudonyms `forget` still finds: compact, 4-4-4-4(-3), 4-6-5."""


def _policy_one(family: str, canonical: str, digest: Digest) -> list[str]:
    """What corpus-tool 0.1 (redaction policy 1) made of grouped cards and compact IBANs.

    Its digits depended on the grouping (a 0 at each group start), so traces written then
    hold these forms; a corpus made since holds the one form `needles` computes first.
    """
    count = len(canonical)
    if family == "iban":
        bban = digest.digits(count - 4)
        return ["XX" + iban_check_digits("XX", bban) + bban]
    if family != "payment_card":
        return []
    found = []
    for sizes in _CARD_GROUPS:
        starts = {at for at in itertools.accumulate(sizes) if at < count}
        body = zero_at("0000" + digest.digits(count - 5), starts)
        found.append(body + luhn_digit(body))
    return found


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
