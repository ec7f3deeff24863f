"""Check-digit algorithms: a number that fails its checksum is not personal data we flag."""

from __future__ import annotations

import datetime


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of text (compact tables of codes)."""
    return frozenset(text.split())


_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_ID_CHECK = "10X98765432"
_CN_PROVINCES = words(
    "11 12 13 14 15 21 22 23 31 32 33 34 35 36 37 41 42 43 44 45 46 50 51 52 53 54 61 62 63 "
    "64 65 71 81 82 83"
)


def digits_of(text: str) -> str:
    """Only the ASCII digits of text, in order."""
    return "".join(ch for ch in text if "0" <= ch <= "9")


def luhn_ok(number: str) -> bool:
    """True when a digit string passes the Luhn (mod 10) check."""
    return len(number) > 1 and _luhn_sum(number) % 10 == 0


def luhn_digit(body: str) -> str:
    """The check digit that makes `body + digit` pass Luhn."""
    return str((10 - _luhn_sum(body + "0") % 10) % 10)


def _luhn_sum(number: str) -> int:
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total


def iban_mod97(compact: str) -> int:
    """ISO 13616 remainder of an IBAN (country, check digits, BBAN) without spaces."""
    moved = compact[4:] + compact[:4]
    numeric = "".join(str(int(ch, 36)) for ch in moved)
    return int(numeric) % 97


def iban_ok(compact: str) -> bool:
    """True when an upper-case, space-free IBAN passes mod-97."""
    return compact.isalnum() and compact.isascii() and iban_mod97(compact) == 1


def iban_check_digits(country: str, bban: str) -> str:
    """The two check digits for a country and BBAN."""
    return f"{98 - iban_mod97(country + '00' + bban):02d}"


def cn_id_check_char(first17: str) -> str:
    """ISO 7064 MOD 11-2 check character of a Chinese resident ID."""
    total = sum(int(ch) * w for ch, w in zip(first17, _CN_ID_WEIGHTS, strict=True))
    return _CN_ID_CHECK[total % 11]


def cn_id_ok(text: str) -> bool:
    """18 characters, a known province, a real birth date and a matching check character."""
    if len(text) != 18 or not text[:17].isdigit():
        return False
    if text[:2] not in _CN_PROVINCES or not _date_ok(text[6:14]):
        return False
    return cn_id_check_char(text[:17]) == text[17].upper()


def _date_ok(yyyymmdd: str) -> bool:
    try:
        day = datetime.date(int(yyyymmdd[:4]), int(yyyymmdd[4:6]), int(yyyymmdd[6:8]))
    except ValueError:
        return False
    return 1900 <= day.year <= 2099
