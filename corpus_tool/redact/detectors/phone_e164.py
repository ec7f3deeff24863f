"""International phone numbers in E.164 form: +, an assigned country code, 8 to 15 digits."""

from __future__ import annotations

from corpus_tool.redact.checksums import digits_of, words
from corpus_tool.redact.pseudonym import Digest, fill_digits

_TWO = words(
    "20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 "
    "63 64 65 66 81 82 84 86 90 91 92 93 94 95 98"
)
_SPARE_THREE = words(
    "210 214 215 217 219 259 292 293 294 295 296 384 422 424 425 426 427 428 429 671 693 694 "
    "695 696 697 698 699 801 802 803 804 805 806 807 809 851 854 857 858 859 871 872 873 874 "
    "875 876 877 879 884 885 887 889 969 978 990 997 999"
)


class PhoneE164:
    """Replaced by +999... (999 is no country code), digit count and separators kept."""

    name = "phone_e164"
    family = "phone_e164"
    before = "[0-9A-Za-z+]"
    left: frozenset[str] = frozenset()
    pattern = r"\+[1-9](?:[ .-]?\(?[0-9]\)?){6,14}(?![0-9])"

    def accept(self, text: str) -> str | None:
        """Numbers with an assigned country code and a plausible length."""
        digits = digits_of(text)
        if not 8 <= len(digits) <= 15 or not _country_ok(digits):
            return None
        if digits.startswith("86") and len(digits) == 13 and digits[2] == "1":
            return None  # a Chinese mobile shape: cn_mobile's call, and it said no
        return text

    def canonical(self, text: str) -> str:
        """+ and digits."""
        return "+" + digits_of(text)

    def pseudonym(self, text: str, digest: Digest) -> str:
        """+999 and keyed digits."""
        count = len(digits_of(text))
        return fill_digits(text, "999" + digest.digits(count - 3))


def _country_ok(digits: str) -> bool:
    if digits[0] in "17":
        return True
    if digits[:2] in _TWO:
        return True
    return digits[:2] not in ("28", "83", "89") and digits[:3] not in _SPARE_THREE


DETECTOR = PhoneE164()
