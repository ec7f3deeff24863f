"""Chinese mobile numbers: 1[3-9]x xxxx xxxx, with or without +86/0086, spaces or dashes (3-4-4)."""

from __future__ import annotations

from corpus_tool.redact.checksums import digits_of, words
from corpus_tool.redact.pseudonym import Digest, fill_digits

# Three-digit heads that are no mobile range (data-only, unassigned).
_NOT_MOBILE = words("140 141 142 143 144 154 160 161 163 164 168 169 179 190 192 194")


class CnMobile:
    """Replaced by 100 + 8 keyed digits (100 is no mobile range); prefix and separators kept."""

    name = "cn_mobile"
    family = "cn_mobile"
    before = "[0-9A-Za-z+]"
    left: frozenset[str] = frozenset()
    # "+86 138...", "0086138...", "86 138...", "138...": the first character picks the branch.
    pattern = (
        r"[+081](?:(?<=\+)86[ -]?1|(?<=0)086[ -]?1|(?<=8)6[ -]?1|(?<=1))"
        r"[3-9][0-9](?:[0-9]{8}| [0-9]{4} [0-9]{4}|-[0-9]{4}-[0-9]{4})(?![0-9A-Za-z])"
    )

    def accept(self, text: str) -> str | None:
        """Numbers in an assigned mobile range."""
        return None if self.canonical(text)[:3] in _NOT_MOBILE else text

    def canonical(self, text: str) -> str:
        """The 11-digit national number."""
        return digits_of(text)[-11:]

    def pseudonym(self, text: str, digest: Digest) -> str:
        """Country prefix kept, national number 100xxxxxxxx."""
        digits = digits_of(text)
        return fill_digits(text, digits[:-11] + "100" + digest.digits(8))


DETECTOR = CnMobile()
