"""Entities in an output text: ids, amounts with their units, dates, email addresses.

An answer that loses the refund id or the amount has lost what the user needed, however well
it reads; a reworded answer keeps them. Values are normalized (`199.00 CNY` and `CNY 199` are
one amount, `2025/6/1` and `2025-06-01` one date) so rewording alone loses nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from corpus_tool.io.files import canonical_json
from corpus_tool.model.json import Json

EntityKind = Literal["id", "amount", "date", "email"]


@dataclass(frozen=True, order=True)
class Entity:
    """One entity: its kind, its normalized value, and the text it was written as."""

    kind: EntityKind
    value: str
    text: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """What two outputs compare: kind and normalized value."""
        return (self.kind, self.value)


_CURRENCY_WORDS = "USD|EUR|GBP|JPY|CNY|RMB|HKD|SGD|AUD|CAD|CHF|INR|KRW|元|块"
_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "CNY", "￥": "CNY"}
_UNITS = "cents?|%|kg|g|lbs?|km|mi|GB|MB|TB|days?|hours?|minutes?|items?|pcs"
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_AMOUNT = re.compile(
    rf"(?P<sym>[$€£¥￥])\s?(?P<n1>{_NUMBER})"
    rf"|\b(?P<code>{_CURRENCY_WORDS})\s?(?P<n2>{_NUMBER})"
    rf"|(?P<n3>{_NUMBER})\s?(?P<unit>{_CURRENCY_WORDS}|{_UNITS})(?![A-Za-z])",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_DATE = re.compile(
    r"(?P<y>\d{4})[-/.年](?P<m>\d{1,2})[-/.月](?P<d>\d{1,2})日?"
    r"|(?P<mon>[A-Z][a-z]{2,8})\.? (?P<d2>\d{1,2}),? (?P<y2>\d{4})"
    r"|(?P<d3>\d{1,2}) (?P<mon3>[A-Z][a-z]{2,8}) (?P<y3>\d{4})"
)
# ASCII classes: in CJK text an id stands right next to ideographs (退款单号R900已提交)
_ID = re.compile(
    r"(?<![A-Za-z0-9_@.-])(?:#\d+|[A-Za-z][A-Za-z_]*[-_]?\d[A-Za-z0-9_-]*)(?![A-Za-z0-9_@])"
)


def entities(output: Json) -> list[Entity]:
    """The entities of a final output (text, or any JSON value as its text), sorted, unique."""
    text = output if isinstance(output, str) else canonical_json(output) if output else ""
    found: dict[tuple[str, str], Entity] = {}
    taken: list[tuple[int, int]] = []
    for finder in (_emails, _dates, _amounts, _ids):
        for entity, span in finder(text):
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue  # inside an email, a date or an amount already found
            taken.append(span)
            found.setdefault(entity.key, entity)
    return sorted(found.values())


Found = list[tuple[Entity, tuple[int, int]]]


def _emails(text: str) -> Found:
    return [
        (Entity("email", m.group(0).lower(), m.group(0)), m.span()) for m in _EMAIL.finditer(text)
    ]


def _dates(text: str) -> Found:
    out = []
    for m in _DATE.finditer(text):
        day = _date_value(m)
        if day is not None:
            out.append((Entity("date", day, m.group(0)), m.span()))
    return out


def _date_value(m: re.Match[str]) -> str | None:
    if m.group("y"):
        y, mo, d = int(m.group("y")), int(m.group("m")), int(m.group("d"))
    else:
        name = (m.group("mon") or m.group("mon3") or "")[:3].lower()
        if name not in _MONTHS:
            return None
        y = int(m.group("y2") or m.group("y3"))
        mo, d = _MONTHS.index(name) + 1, int(m.group("d2") or m.group("d3"))
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    return f"{y:04d}-{mo:02d}-{d:02d}"


def _amounts(text: str) -> Found:
    out = []
    for m in _AMOUNT.finditer(text):
        number = m.group("n1") or m.group("n2") or m.group("n3")
        unit = _unit(m.group("sym") or m.group("code") or m.group("unit") or "")
        try:
            value = Decimal(number.replace(",", "")).normalize()
        except InvalidOperation:
            continue
        out.append((Entity("amount", f"{value:f} {unit}", m.group(0)), m.span()))
    return out


def _unit(raw: str) -> str:
    if raw in _SYMBOLS:
        return _SYMBOLS[raw]
    lowered = raw.lower()
    if raw.upper() in ("RMB", "CNY") or raw in ("元", "块"):
        return "CNY"
    if lowered.rstrip("s") in ("cent", "day", "hour", "minute", "item", "lb"):
        return lowered.rstrip("s")
    return raw.upper() if raw.isalpha() and len(raw) == 3 else lowered


def _ids(text: str) -> Found:
    return [(Entity("id", m.group(0), m.group(0)), m.span()) for m in _ID.finditer(text)]
