"""Keyed pseudonyms: what a redacted value looks like, and the grammar `validate` relies on.

Every pseudonym is computed from ``HMAC-SHA256(key, "pseudonym" NUL family NUL canonical)``,
where `canonical` is the detector's normal form of the value (an email lower-cased, a phone
number reduced to its digits, a card to its digits, ...). One key therefore maps a value to one
pseudonym in every field and every case, and without the key the pseudonym cannot be brute-forced
back to the value. A different key gives unrelated pseudonyms.

Grammar (``H`` = lower-case hex of the HMAC, ``D`` = decimal digits of the HMAC)::

    dropped         = "REDACTED"                         ; values under secret-named keys
    opaque          = [prefix] "REDACTED-" kind "-" 12H  ; tokens, keys, JWTs, credentials
    email           = "user-" 12H "@redacted.invalid"    ; RFC 2606 reserved TLD
    cn_mobile       = [prefix as written] "100" 8D       ; 100 is no mobile range
    phone_e164      = "+" "999" D...                     ; 999 is no country code
    payment_card    = 4* "0" D... check                  ; passes Luhn, 0 is no card network
    cn_resident_id  = "000000" YYYYMMDD 3D check         ; date and MOD 11-2 valid, no province 00
    iban            = "XX" check D...                    ; passes mod-97, XX is no country
    us_ssn          = "000-" 2D "-" 4D                   ; area 000 is never issued

Shaped kinds keep the separators (spaces, dashes, dots, parentheses) and the digit count of the
value they replace, so agent code that parses a phone number or a card still parses the
pseudonym; their digits depend on the value alone, never on its grouping, so every spelling of
one value is one pseudonym. A card pseudonym starts with as many zeros as it takes (at least
four) that every tail of 13 digits starts with 0, and an IBAN's has a 0 at every fourth
position (where any spelling's groups start), so no group of a pseudonym starts a card or
account number of its own. `opaque` keeps the token's own prefix (``ghp_``,
``sk-proj-``, ``xoxb-``, ``Bearer ``...) so a reader sees what kind of secret stood there.
Each pseudonym sits in a range no real value can take (a reserved domain, an unassigned
prefix, the ``REDACTED-`` marker), so the detectors reject it and re-scanning a redacted trace
finds nothing.

Opaque secrets share the digest family ``secret``: the same token gets the same 12 hex digits
whether it was found bare or inside an ``Authorization`` header.
"""

from __future__ import annotations

import hashlib
import hmac

MARKER = "REDACTED"
"""The fixed value that replaces anything under a secret-named key."""

OPAQUE = "REDACTED-"
"""Marks an opaque pseudonym; a detector never accepts a candidate that contains it."""

RESERVED_EMAIL_DOMAIN = "redacted.invalid"


class Digest:
    """The HMAC of one value, read as hex or as decimal digits."""

    def __init__(self, key: bytes, family: str, canonical: str):
        message = b"pseudonym\x00" + family.encode() + b"\x00" + canonical.encode()
        self.raw = hmac.new(key, message, hashlib.sha256).digest()

    def hex(self, n: int = 12) -> str:
        """The first n hex digits."""
        return self.raw.hex()[:n]

    def digits(self, n: int) -> str:
        """n decimal digits (up to 70), uniformly spread."""
        return f"{int.from_bytes(self.raw, 'big') % 10**n:0{n}d}"


def opaque(prefix: str, kind: str, digest: Digest) -> str:
    """An opaque pseudonym: the token's prefix, the marker, the kind and 12 hex digits."""
    return f"{prefix}{OPAQUE}{kind}-{digest.hex()}"


def fill_digits(template: str, digits: str) -> str:
    """Put `digits` into the digit positions of `template`, keeping every other character."""
    out = []
    feed = iter(digits)
    for ch in template:
        out.append(next(feed) if "0" <= ch <= "9" else ch)
    return "".join(out)


def fill_alnum(template: str, chars: str) -> str:
    """Put `chars` into the letter and digit positions of `template` (IBAN grouping)."""
    out = []
    feed = iter(chars)
    for ch in template:
        out.append(next(feed) if ch.isalnum() else ch)
    return "".join(out)


def zero_at(chars: str, positions: set[int], offset: int = 0) -> str:
    """chars with a 0 at each position (shifted by offset) that falls inside it."""
    out = list(chars)
    for position in positions:
        if 0 <= position - offset < len(out):
            out[position - offset] = "0"
    return "".join(out)
