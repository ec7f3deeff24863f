"""The content-keyed allow-list: redaction waivers name a value by its keyed fingerprint.

A fingerprint is an HMAC of the value's canonical form under the corpus key, so an allow-list
entry survives edits, moves, re-indentation and squash merges (it names content, not a line or a
commit), cannot be reversed without the key, and stops matching when the value is gone, which
`unused()` reports.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
from collections.abc import Iterable, Mapping
from typing import Any

from corpus_tool.redact.detectors import DETECTORS
from corpus_tool.redact.keys import RedactionKey
from corpus_tool.redact.scanner import RawHit

_CANONICAL = {d.name: d.canonical for d in DETECTORS}


def fingerprint(value: str, key: RedactionKey, detector: str | None = None) -> str:
    """The keyed fingerprint of a raw value: fp- and 16 hex digits."""
    canonical = _CANONICAL[detector](value) if detector in _CANONICAL else value
    message = b"fingerprint\x00" + canonical.encode("utf-8")
    return "fp-" + hmac.new(key.secret, message, hashlib.sha256).hexdigest()[:16]


class AllowList:
    """The redaction waivers of a corpus, asked hit by hit; remembers which ones matched."""

    def __init__(
        self, waivers: Iterable[Mapping[str, Any]], key: RedactionKey, today: datetime.date
    ):
        self._key = key
        self.expired: list[Mapping[str, Any]] = []
        self._entries: dict[tuple[str, str], Mapping[str, Any]] = {}
        for waiver in waivers:
            if waiver.get("kind") != "redaction":
                continue
            if str(waiver.get("expires", "9999-12-31")) < today.isoformat():
                self.expired.append(waiver)
            else:
                self._entries[(str(waiver.get("detector")), str(waiver.get("fingerprint")))] = (
                    waiver
                )
        self._used: set[tuple[str, str]] = set()
        self.matches = 0  # hits allowed so far (a file that needed the list is never cached)

    def active(self) -> list[tuple[str, str]]:
        """(detector, fingerprint) of every unexpired entry, sorted."""
        return sorted(self._entries)

    def allows(self, hit: RawHit) -> Mapping[str, Any] | None:
        """The waiver that allows this hit, if one does."""
        entry = (hit.detector, fingerprint(hit.value, self._key, hit.detector))
        waiver = self._entries.get(entry)
        if waiver is not None:
            self._used.add(entry)
            self.matches += 1
        return waiver

    def keeps(self, value: str, detector: str) -> bool:
        """Whether `corpus add` keeps this value as it is (an active entry names it)."""
        return self.allows(RawHit((), detector, value)) is not None

    def unused(self) -> list[Mapping[str, Any]]:
        """Unexpired entries that allowed nothing so far (stale: the value is gone)."""
        return [w for entry, w in sorted(self._entries.items()) if entry not in self._used]
