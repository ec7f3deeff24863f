"""International bank account numbers: known country length and mod-97 check digits."""

from __future__ import annotations

from corpus_tool.redact.checksums import iban_check_digits, iban_ok
from corpus_tool.redact.pseudonym import Digest, fill_alnum, zero_at

# ISO 13616 registry lengths (the countries a corpus is likely to meet; XX is user-assigned).
_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20,
    "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18,
    "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27,
    "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27,
    "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SE": 24, "SI": 19,
    "SK": 24, "SM": 27, "TN": 24, "TR": 26, "UA": 29, "VG": 24, "XK": 20,
}  # fmt: skip


class Iban:
    """Grouped or compact IBANs; replaced by one in country XX with valid check digits."""

    name = "iban"
    family = "iban"
    before = "[A-Za-z0-9]"
    left: frozenset[str] = frozenset()
    pattern = r"[A-Z][A-Z][0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])"

    def accept(self, text: str) -> str | None:
        """The IBAN (cut to its country's length) if it passes mod-97."""
        length = _LENGTHS.get(text[:2])
        if length is None:
            return None
        kept = _cut(text, length)
        if kept is None or not iban_ok(kept.replace(" ", "")):
            return None
        return kept

    def canonical(self, text: str) -> str:
        """Compact form."""
        return text.replace(" ", "")

    def pseudonym(self, text: str, digest: Digest) -> str:
        """XX + check digits + keyed digits, in the original grouping.

        An IBAN's groups are four characters wherever it is spaced, so a 0 at every fourth
        position is a 0 at every group start of any spelling: no group re-scans as a card, and
        grouped and compact spellings are one pseudonym.
        """
        count = len(self.canonical(text))
        bban = zero_at(digest.digits(count - 4), set(range(4, count, 4)), offset=4)
        return fill_alnum(text, "XX" + iban_check_digits("XX", bban) + bban)


def _cut(text: str, length: int) -> str | None:
    # Grouping can swallow a following short word ("... 3000 USD"); keep the first `length`.
    count = 0
    for i, ch in enumerate(text):
        count += ch != " "
        if count == length:
            rest = text[i + 1 :]
            return text[: i + 1] if rest == "" or rest.startswith(" ") else None
    return None


DETECTOR = Iban()
