"""US social security numbers written AAA-GG-SSSS, excluding never-issued ranges."""

from __future__ import annotations

from corpus_tool.redact.pseudonym import Digest


class UsSsn:
    """Replaced by 000-GG-SSSS (area 000 is never issued)."""

    name = "us_ssn"
    family = "us_ssn"
    before = "[0-9A-Za-z-]"
    left: frozenset[str] = frozenset()
    pattern = r"[0-9][0-9]{2}-[0-9]{2}-[0-9]{4}(?![0-9A-Za-z-])"

    def accept(self, text: str) -> str | None:
        """Area not 000, 666 or 9xx; group not 00; serial not 0000."""
        area, group, serial = text.split("-")
        if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
            return None
        return text

    def canonical(self, text: str) -> str:
        """Digits with dashes, as written."""
        return text

    def pseudonym(self, text: str, digest: Digest) -> str:
        """000-GG-SSSS with keyed digits."""
        d = digest.digits(6)
        return f"000-{d[:2]}-{d[2:]}"


DETECTOR = UsSsn()
