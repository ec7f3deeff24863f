"""Payment card numbers: a known network prefix and length, Luhn, with spaces or dashes."""

from __future__ import annotations

import re

from corpus_tool.redact.checksums import digits_of, luhn_digit, luhn_ok
from corpus_tool.redact.pseudonym import Digest, fill_digits

_GROUP_END = re.compile(r"[0-9](?=[ -]|$)")


class PaymentCard:
    """Replaced by a Luhn-valid number starting 0000 (no network), separators kept."""

    name = "payment_card"
    family = "payment_card"
    before = "[0-9A-Za-z.,]"
    left: frozenset[str] = frozenset()
    # Compact, or groups of 3-6 digits after a first group of 4 (4-4-4-4, 4-6-5, 4-4-4-4-3).
    pattern = r"[1-9](?:[0-9]{12,18}|[0-9]{3}(?:[ -][0-9]{3,6}){2,4})(?![0-9A-Za-z])"

    def accept(self, text: str) -> str | None:
        """The longest run of whole groups that is a card: known network, length, Luhn."""
        ends = [m.end() for m in _GROUP_END.finditer(text)]
        for end in reversed(ends):
            number = digits_of(text[:end])
            if _network_ok(number) and luhn_ok(number) and _one_separator(text[:end]):
                return text[:end]
        return None

    def canonical(self, text: str) -> str:
        """Digits only."""
        return digits_of(text)

    def pseudonym(self, text: str, digest: Digest) -> str:
        """Leading zeros + keyed digits + Luhn digit, in the value's own grouping.

        The digits depend on the number alone, never on its grouping, so a card written grouped,
        spaced or compact is one pseudonym. The zeros reach past every position where a tail
        long enough to be a card (13 digits) could start, and no card starts with 0, so no group
        of a pseudonym re-scans as a card of its own.
        """
        return fill_digits(text, card_digits(len(self.canonical(text)), digest))


def card_digits(count: int, digest: Digest) -> str:
    """The digits of a card pseudonym: zeros, keyed digits, a Luhn check digit."""
    zeros = max(4, count - 12)
    body = "0" * zeros + digest.digits(count - zeros - 1)
    return body + luhn_digit(body)


def _one_separator(text: str) -> bool:
    return not (" " in text and "-" in text)


def _network_ok(d: str) -> bool:
    n = len(d)
    if n < 13:  # 12-digit Maestro numbers are rare; a UUID's last group is 12 digits
        return False
    p2, p3, p4 = int(d[:2]), int(d[:3]), int(d[:4])
    if d[0] == "4":  # Visa
        return n in (13, 16, 19)
    if 51 <= p2 <= 55 or 2221 <= p4 <= 2720:  # Mastercard
        return n == 16
    if p2 in (34, 37):  # American Express
        return n == 15
    if p2 in (36, 38) or 300 <= p3 <= 305:  # Diners
        return 14 <= n <= 19
    if p2 in (62, 65) or p4 == 6011 or 644 <= p3 <= 649 or 3528 <= p4 <= 3589:
        return 16 <= n <= 19  # UnionPay, Discover, JCB
    return p2 in (50, 56, 57, 58, 63, 67) and 13 <= n <= 19  # Maestro


DETECTOR = PaymentCard()
