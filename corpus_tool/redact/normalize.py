"""The normalized view the detectors read, and the way from a hit in it back to the original.

A value can hide from ASCII patterns behind another spelling: full-width digits
(`１３８１２３４５６７８`), no-break spaces between a card's groups, a zero-width joiner inside an
e-mail's domain, `%40` or `&#64;` for its `@`. The view undoes that: percent-escapes and HTML
character references are decoded, characters are NFKC-folded where that gives characters a
value is made of (full-width and no-break forms become ASCII), and default-ignorable characters
(zero-width space, joiners, word joiner, byte-order mark, soft hyphen, bidi controls, variation
selectors) are removed. `View.span` maps a span of the view back to the span of the original
that spelled it, so a replacement covers exactly the original spelling, while the value (and
so its pseudonym) is the normalized one.

Only characters that change make a piece of the view; the rest is the original, so most text
(ASCII without `%` or `&`, CJK prose) gets no view at all and is scanned as it is.
"""

from __future__ import annotations

import bisect
import functools
import html.entities
import re
import string
import unicodedata
from typing import NamedTuple

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties), the characters that render as
# nothing: a reader sees the value, the pattern sees it cut in two.
_IGNORABLE = """
00AD 034F 061C 115F-1160 17B4-17B5 180B-180F 200B-200F 202A-202E 2060-206F 3164 FE00-FE0F
FEFF FFA0 1BCA0-1BCA3 1D173-1D17A E0000-E0FFF
"""
# What a value can be made of (the detectors' patterns). A character whose NFKC form holds none
# of these, such as the full-width comma of CJK prose, is left as it is: it can change no hit,
# and folding it would put an ASCII guard (`,` before a card number) where the original has none.
VALUE_CHARS = frozenset(string.ascii_letters + string.digits + "@._%+-/~=:()'\" \t\n")
# Every character whose NFKC form holds a VALUE_CHARS character (full-width and mathematical
# letters and digits, no-break and other spaces, ligatures, circled numbers...): what `foldable`
# says of each code point under Unicode 14, and a test checks under the Python it runs on.
# Kept as a table because finding them with one regex is what keeps CJK prose fast to scan.
_FOLDABLE = """
00A0 00A8 00AA 00AF 00B2-00B4 00B8-00BA 00BC-00BE 0132-0133 013F-0140 0149 017F
01C4-01CC 01F1-01F3 02B0 02B2-02B3 02B7-02B8 02D8-02DD 02E1-02E3 037A 0384-0385 1D2C
1D2E 1D30-1D31 1D33-1D3A 1D3C 1D3E-1D43 1D47-1D49 1D4D 1D4F-1D50 1D52 1D56-1D58 1D5B
1D62-1D65 1D9C 1DA0 1DBB 1E9A 1FBD 1FBF-1FC1 1FCD-1FCF 1FDD-1FDF 1FED-1FEE 1FFD-1FFE
2000-200A 2017 2024-2026 202F 203E 205F 2070-2071 2074-207A 207C-208A 208C-208E
2090-2093 2095-209C 20A8 2100-2103 2105-2106 2109-210E 2110-2113 2115-2116 2119-211D
2120-2122 2124 2128 212A 212C-212D 212F-2131 2133-2134 2139 213B 2145-2149 2150-217F
2189 2460-24EA 2A74-2A76 2C7C-2C7D 3000 309B-309C 3200-321E 3220-3243 3250-325F
32B1-32CF 3358-337A 3380-33FF A7F2-A7F4 FB00-FB06 FB29 FC5E-FC63 FDFA-FDFB FE13 FE19
FE30 FE33-FE36 FE49-FE4F FE52 FE55 FE59-FE5A FE62-FE63 FE66 FE6A-FE6B FE70 FE72 FE74
FE76 FE78 FE7A FE7C FE7E FF02 FF05 FF07-FF09 FF0B FF0D-FF1A FF1D FF20-FF3A FF3F
FF41-FF5A FF5E FFE3 107A5 1D400-1D454 1D456-1D49C 1D49E-1D49F 1D4A2 1D4A5-1D4A6
1D4A9-1D4AC 1D4AE-1D4B9 1D4BB 1D4BD-1D4C3 1D4C5-1D505 1D507-1D50A 1D50D-1D514
1D516-1D51C 1D51E-1D539 1D53B-1D53E 1D540-1D544 1D546 1D54A-1D550 1D552-1D6A3
1D7CE-1D7FF 1F100-1F10A 1F110-1F12E 1F130-1F14F 1F16A-1F16C 1F190 1FBF0-1FBF9
"""


def _char_class(table: str, astral: bool) -> str:
    """The code points of a table, in or beyond the Basic Multilingual Plane, as a regex class.

    Two classes, because one that mixes both makes every search ten times slower."""
    ranges = []
    for item in table.split():
        first, _, last = item.partition("-")
        if (int(first, 16) > 0xFFFF) == astral:
            ranges.append("-".join(chr(int(code, 16)) for code in (first, last or first)))
    return "[" + "".join(ranges) + "]"


_BMP = re.compile(_char_class(_FOLDABLE + _IGNORABLE, astral=False))
_ASTRAL = re.compile(_char_class(_FOLDABLE + _IGNORABLE, astral=True))
_SPECIAL = re.compile(
    r"(?:%[0-9A-Fa-f]{2})+"
    r"|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
    f"|{_BMP.pattern}|{_ASTRAL.pattern}"
)
_IGNORABLE_CHAR = re.compile(
    _char_class(_IGNORABLE, astral=False) + "|" + _char_class(_IGNORABLE, astral=True)
)
_ENTITIES = html.entities.html5


class _Piece(NamedTuple):
    """Original text[start:end] reads as `text` in the view, which starts at view_start."""

    start: int
    end: int
    text: str
    view_start: int


class View(NamedTuple):
    """A normalized spelling of a string, with what maps its spans back."""

    text: str
    pieces: tuple[_Piece, ...]
    starts: tuple[int, ...]  # view_start of each piece, for bisect

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original that view text[start:end] (end > start) came from."""
        return self._origin(start, False), self._origin(end - 1, True)

    def _origin(self, at: int, after: bool) -> int:
        i = bisect.bisect_right(self.starts, at) - 1
        if i < 0:
            return at + after
        piece = self.pieces[i]
        inside = at - piece.view_start
        if inside < len(piece.text):  # within a changed spelling: all of it
            return piece.end if after else piece.start
        return piece.end + inside - len(piece.text) + after


def view(text: str) -> View | None:
    """The normalized view of text, or None when normalizing changes nothing."""
    if "%" not in text and "&" not in text and (text.isascii() or not changing(text)):
        return None
    changes: list[tuple[int, int, str]] = []
    for found in _SPECIAL.finditer(text):
        token = found.group()
        if token[0] == "%":
            changes.extend(_percent(token, found.start()))
        elif token[0] == "&":
            changes.extend(_entity(token, found.start()))
        else:
            new = _fold(token)
            if new != token:
                changes.append((found.start(), found.end(), new))
    return _build(text, changes) if changes else None


def changing(text: str) -> bool:
    """Whether text holds a character the view folds or removes."""
    if _BMP.search(text) is not None:
        return True
    beyond = len(text.encode("utf-16-le", "surrogatepass")) > 2 * len(text)  # C speed
    return beyond and _ASTRAL.search(text) is not None


def foldable(ch: str) -> bool:
    """Whether the view folds ch: its NFKC form differs and holds a character of a value."""
    folded = unicodedata.normalize("NFKC", ch)
    return folded != ch and not VALUE_CHARS.isdisjoint(folded)


def _build(text: str, changes: list[tuple[int, int, str]]) -> View:
    out: list[str] = []
    pieces: list[_Piece] = []
    pos = size = 0
    for start, end, new in changes:
        out.append(text[pos:start])
        size += start - pos
        pieces.append(_Piece(start, end, new, size))
        out.append(new)
        size += len(new)
        pos = end
    out.append(text[pos:])
    return View("".join(out), tuple(pieces), tuple(p.view_start for p in pieces))


@functools.lru_cache(maxsize=4096)  # character references can spell any code point
def _fold(ch: str) -> str:
    if _IGNORABLE_CHAR.match(ch):
        return ""
    return unicodedata.normalize("NFKC", ch) if foldable(ch) else ch


def _percent(run: str, at: int) -> list[tuple[int, int, str]]:
    """Each UTF-8 character a run of %XX escapes spells; a byte that is none stays escaped."""
    data = bytes.fromhex(run.replace("%", ""))
    changes = []
    i = 0
    while i < len(data):
        size = _utf8_size(data[i])
        try:
            ch = data[i : i + size].decode("utf-8") if size else None
        except UnicodeDecodeError:
            ch = None
        if ch is None:
            i += 1
            continue
        changes.append((at + 3 * i, at + 3 * (i + size), "".join(map(_fold, ch))))
        i += size
    return changes


def _utf8_size(lead: int) -> int:
    if lead < 0x80:
        return 1
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    return 4 if 0xF0 <= lead <= 0xF4 else 0


def _entity(token: str, at: int) -> list[tuple[int, int, str]]:
    """An HTML character reference (`&#64;`, `&#x40;`, `&commat;`) decoded and folded."""
    name = token[1:-1]
    if name[0] == "#":
        code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
        if not 0 < code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return []
        decoded = chr(code)
    else:
        decoded = _ENTITIES.get(name + ";", "")
        if not decoded:
            return []
    return [(at, at + len(token), "".join(map(_fold, decoded)))]
