"""Chinese resident identity numbers: 18 characters, province, birth date, MOD 11-2 check."""

from __future__ import annotations

import datetime

from corpus_tool.redact.checksums import cn_id_check_char, cn_id_ok
from corpus_tool.redact.pseudonym import Digest

_EPOCH = datetime.date(1940, 1, 1)


class CnResidentId:
    """Replaced by an ID with province 00 (none), a keyed birth date and a valid check."""

    name = "cn_resident_id"
    family = "cn_resident_id"
    before = "[0-9A-Za-z]"
    left: frozenset[str] = frozenset()
    pattern = (
        r"[1-9][0-9]{5}(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])"
        r"[0-9]{3}[0-9Xx](?![0-9A-Za-z])"
    )

    def accept(self, text: str) -> str | None:
        """IDs with a known province, a real date and a matching check character."""
        return text if cn_id_ok(text) else None

    def canonical(self, text: str) -> str:
        """Upper-case X."""
        return text.upper()

    def pseudonym(self, text: str, digest: Digest) -> str:
        """000000 + date + sequence + check character."""
        number = int(digest.digits(12))
        born = _EPOCH + datetime.timedelta(days=number % 25000)
        body = f"000000{born:%Y%m%d}{number // 25000 % 1000:03d}"
        return body + cn_id_check_char(body)


DETECTOR = CnResidentId()
