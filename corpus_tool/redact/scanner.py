"""Walk a JSON-like value and find (or replace) every detected value in it.

Strings are scanned whole with the combined matcher; a string holding a JSON document is parsed
and walked (and re-serialised only when something inside changed); URL query parameters are
decoded and scanned one by one (in relative references such as `/hook?token=...` too); values
under secret-named keys are dropped to a fixed marker; integers long enough to be a phone or card
number are scanned as text; dict keys are scanned too, integer keys included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from urllib.parse import quote, unquote_plus

from corpus_tool.redact.detectors import SECRET_KEY, URL_PASSWORD, Detector
from corpus_tool.redact.matcher import Matcher, default_matcher
from corpus_tool.redact.names import is_secret_name, secret_names
from corpus_tool.redact.normalize import View, view
from corpus_tool.redact.pseudonym import MARKER, OPAQUE

Path = tuple[str | int, ...]
Rewrite = Callable[[str, Detector], str]

MIN_LENGTH = 6
"""No detector matches fewer characters (a@b.cn), so shorter strings are skipped."""
MAX_DEPTH = 4
"""JSON inside JSON inside ... is walked this deep."""
# An absolute URL, or any reference with a query: `/hook?access_token=...` in an error message
# carries its secret as surely as a full URL does.
_URL = re.compile(r"https?://[^\s\"'<>\\]+|[^\s\"'<>\\?=&]*\?[^\s\"'<>\\=&?#]+=[^\s\"'<>\\]*")
# A query's parameters are split at `&` (or the `&amp;` of a URL in HTML), never at the `&` of
# a character reference (`to=alice&#64;example.com`), whose `#` starts no fragment either.
_QUERY_SEPARATOR = re.compile(
    r"(&amp;|&(?!#[0-9]{1,7};|#[xX][0-9A-Fa-f]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};))"
)
_FRAGMENT = re.compile(r"(?<!&)#")
# The authority of a URL: `postgres://user:secret@host` holds a password before its last `@`.
_AUTHORITY = re.compile(r"://([^\s/?#\"'<>\\]+)")
_JSON_SEPARATOR_SPACE = re.compile(r"[,:] ")
_REDACTED_CREDENTIAL = re.compile(
    r"(?:[A-Za-z]+ )?[A-Za-z0-9_-]*" + re.escape(OPAQUE) + r"[a-z0-9_]+-[0-9a-f]{12}"
)


_NOTHING: frozenset[str] = frozenset()
_PLAIN_SCALARS = (bool, float, type(None))
_JSON_KINDS = frozenset((str, dict, list, int, *_PLAIN_SCALARS))  # schema.is_plain's types


def _untouched(item: Any, clean: set[str] | frozenset[str]) -> bool:
    """Is `item` a value the walk returns as it is without a look: a string known to hold
    nothing (or too short to), a short integer, a bool, a float, None?"""
    kind = type(item)
    if kind is str:
        return len(item) < MIN_LENGTH or item in clean
    if kind is int:
        return bool(-(10**8) < item < 10**8)
    return kind in _PLAIN_SCALARS


def _depth_matters(text: str) -> bool:
    """Whether a string's scan may differ with its JSON depth (and as a mapping key, which is
    scanned as plain text only): JSON in it is parsed above MAX_DEPTH only, and a URL's query
    parameters are strings one level down. Any other string is scanned as plain text at every
    depth, so a rewriting walk scans it once wherever it recurs."""
    return "?" in text or text.lstrip()[:1] in ("{", "[")


class RawHit(NamedTuple):
    """One unredacted value: where (JSON path parts), what (detector) and the raw text."""

    path: Path
    detector: str
    value: str


Found = tuple[tuple[Path, str, str], ...]
"""The hits of one string, each as (path below the string, detector, value)."""
Asked = tuple[str, Detector]
"""A value a rewriting walk asked its rewrite for, and the detector that found it."""


@dataclass
class Memo:
    """What scan-only walks with the same drop keys remember from string to string and file to
    file: a trace re-sends the whole conversation in every model call, so most strings recur."""

    found: dict[tuple[str, int], Found] = field(default_factory=dict)
    """(text, JSON depth; -1 for a mapping key) -> the hits in it."""
    secret: dict[str, bool] = field(default_factory=dict)
    """Key name -> whether it names a secret (its value is dropped)."""
    clean: dict[int, set[str]] = field(default_factory=dict)
    """Per depth, the texts of `found` with no hit in them: most strings, tested by a set."""

    def __len__(self) -> int:
        return len(self.found) + len(self.secret)

    def clear(self) -> None:
        self.found.clear()
        self.secret.clear()
        self.clean.clear()


class Walk:
    """One walk over one value; `rewrite` None scans only, else it replaces each hit.

    A scan-only walk given a `memo` scans each distinct string once: a trace re-sends the
    whole conversation in every model call, so most of its strings are repeats.
    """

    def __init__(
        self,
        rewrite: Rewrite | None,
        drop_keys: Iterable[str] = (),
        matcher: Matcher | None = None,
        memo: Memo | None = None,
        own: bool = False,
    ):
        self.rewrite = rewrite
        self.hits: list[RawHit] = []
        self._secret = secret_names(drop_keys)
        self._memo = memo.found if memo is not None and rewrite is None else None
        self._memo_clean = memo.clean if memo is not None else {}
        # a rewriting walk remembers, per (text, depth), what it wrote, the hits and the
        # rewrites asked (asked again on a repeat, so a rewrite's own count stays true)
        # (the depth 0 for a string whose scan does not depend on it: _depth_matters)
        self._rewritten: dict[tuple[str, int], tuple[str, Found, tuple[Asked, ...], bool]] = {}
        self._asked: list[Asked] = []
        # ...and, per depth, the strings it found nothing in: met again, they are skipped
        # without building their path (most strings of a trace; -1: mapping keys). A
        # scan-only walk keeps none: its memo remembers the hits
        self._clean: dict[int, set[str]] = {}
        # ...and the key names met that are no secret's and hold nothing
        self._known_keys: set[str] = set()
        # the same few key names recur in every event
        self._secret_seen: dict[str, bool] = memo.secret if memo is not None else {}
        self._matcher = matcher or default_matcher()
        # `own`: the caller gives the value up (a streamed add's batch, parsed for the walk):
        # a rewriting walk changes its mappings and lists where they are, not in copies
        self._own = own and rewrite is not None
        self.plain_input = True
        """False once the walk met anything JSON does not hold (schema.is_plain's test): a
        rewriting walk over a plain value returns a plain one, so its caller may skip that
        test (a streamed add's events)."""

    def value(self, value: Any, path: Path = (), depth: int = 0) -> Any:
        """The value with every hit replaced (or unchanged when only scanning)."""
        if type(value) not in _JSON_KINDS:
            self.plain_input = False  # (a subclass, a tuple, ...: told by the type, not its value)
        if isinstance(value, str):
            return self.string(value, path, depth)
        if isinstance(value, dict):
            return self._mapping(value, path, depth)
        if isinstance(value, list):
            return self._sequence(value, path, depth)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**8:
            return self._number(value, path)
        return value

    def string(self, text: str, path: Path, depth: int = 0) -> str:
        """A string leaf: JSON inside, URLs with queries, then plain text."""
        if len(text) < MIN_LENGTH:
            return text
        if self.rewrite is not None:
            return self._rewritten_string(text, path, depth)
        if self._memo is None:
            return self._string(text, path, depth)
        known = self._memo.get((text, depth))
        if known is None:
            before = len(self.hits)
            self._string(text, path, depth)
            cut = len(path)
            known = tuple((h.path[cut:], h.detector, h.value) for h in self.hits[before:])
            self._memo[(text, depth)] = known
            if not known:
                self._memo_clean.setdefault(depth, set()).add(text)
        elif known:
            self.hits.extend(RawHit((*path, *below), name, raw) for below, name, raw in known)
        return text

    def _rewritten_string(self, text: str, path: Path, depth: int) -> str:
        where = (text, depth if _depth_matters(text) else 0)
        known = self._rewritten.get(where)
        if known is None:
            hits, asked = len(self.hits), len(self._asked)
            new = self.plain(text, path) if depth < 0 else self._string(text, path, depth)
            cut = len(path)
            found = tuple((h.path[cut:], h.detector, h.value) for h in self.hits[hits:])
            again = tuple(self._asked[asked:])
            known = (new, found, again, new == text and not found and not again)
            self._rewritten[where] = known
        else:
            new, found, again, _ = known
            self.hits.extend(RawHit((*path, *below), name, raw) for below, name, raw in found)
            for value, detector in again:
                self._ask(value, detector)
        if known[3]:  # nothing in it: met again at this depth, it is skipped without a call
            self._clean.setdefault(depth, set()).add(text)
        return new

    def _ask(self, value: str, detector: Detector) -> str:
        assert self.rewrite is not None
        self._asked.append((value, detector))
        return self.rewrite(value, detector)

    def _string(self, text: str, path: Path, depth: int) -> str:
        if depth < MAX_DEPTH and text.lstrip()[:1] in ("{", "["):
            done = self._json(text, path, depth)
            if done is not None:
                return done
        if "?" in text and ("://" in text or "=" in text):
            return self._with_urls(text, path, depth)
        return self.plain(text, path)

    def plain(self, text: str, path: Path) -> str:
        """Text scanned with the combined matcher (and for URL passwords), as it is and in its
        normalized view: a hit the view reveals is replaced where the original spells it, by
        the pseudonym of the normalized value."""
        if len(text) < MIN_LENGTH:
            return text
        seen = view(text)
        if seen is None and "://" not in text and not self._matcher.may_hold(text):
            return text  # what _hits finds then: nothing (most strings)
        spots = _hits(self._matcher, text, seen)
        out: list[str] = []
        pos = 0
        for spot in spots:
            out.append(text[pos : spot.start])
            out.append(self._replace(text[spot.start : spot.end], spot, path))
            pos = spot.end
        return text if pos == 0 else "".join(out) + text[pos:]

    def _replace(self, raw: str, spot: _Spot, path: Path) -> str:
        """What stands for one hit (raw as written, spot.value as normalized) in the output."""
        detector, value = spot.detector, spot.value
        if detector is None:  # a URL's password: dropped, like a secret-named query parameter
            self.hits.append(RawHit((*path, "(url:password)"), URL_PASSWORD, value))
            return MARKER if self.rewrite else raw
        self.hits.append(RawHit(path, detector.name, value))
        new = self._ask(value, detector) if self.rewrite else value
        return raw if new == value else new  # an allowed value keeps its own spelling

    def _mapping(self, mapping: dict[Any, Any], path: Path, depth: int) -> dict[Any, Any]:
        if self._memo is not None:
            return self._scan_mapping(mapping, path, depth)
        # a copy (a dict, whatever the mapping's class), its values replaced where the walk
        # changes them (most are left as they are: a store per key and the dict's growth
        # cost more than the one copy); an owned dict is changed where it is
        if self._own and type(mapping) is dict:
            out = mapping
        else:
            out = mapping.copy() if type(mapping) is dict else dict(mapping.items())
        clean = self._clean.get(depth, _NOTHING)
        known_keys = self._known_keys
        renamed: dict[Any, Any] | None = None
        for key, item in mapping.items():
            if type(key) is str and key in known_keys:
                kind = type(item)
                if kind is str:
                    if item not in clean and len(item) >= MIN_LENGTH:
                        out[key] = self.string(item, (*path, key), depth)
                elif kind is dict:
                    out[key] = self._mapping(item, (*path, key), depth)
                elif kind is list:
                    out[key] = self._sequence(item, (*path, key), depth)
                elif not _untouched(item, clean):
                    out[key] = self.value(item, (*path, key), depth)
                continue
            where = (*path, key)
            if type(key) is not str:
                self.plain_input = False
            if isinstance(key, str) and self._is_secret(key):
                out[key] = self._drop(item, where)
                continue
            new_key = self._key(key, where)
            out[key] = self.value(item, where, depth)
            if new_key != key:
                renamed = renamed if renamed is not None else {}
                renamed[key] = new_key
            elif type(key) is str and key in self._clean.get(-1, _NOTHING):
                known_keys.add(key)  # not secret, nothing in it: the loop's fast lane
        if renamed is None:
            return out
        # a key that held a value (an e-mail address as a key): the keys written in order,
        # as the mapping would be rebuilt (a new key equal to a later one: the later value)
        rebuilt: dict[Any, Any] = {}
        for key, item in out.items():
            rebuilt[renamed.get(key, key)] = item
        return rebuilt

    def _sequence(self, items: list[Any], path: Path, depth: int) -> list[Any]:
        if self._memo is not None:
            return self._scan_sequence(items, path, depth)
        clean = self._clean.get(depth, _NOTHING)
        out = items if self._own and type(items) is list else list(items)  # (or a copy)
        for i, item in enumerate(out):
            kind = type(item)
            if kind is dict:  # (the messages and tool calls of a trace)
                out[i] = self._mapping(item, (*path, i), depth)
            elif kind is list or not _untouched(item, clean):
                out[i] = self.value(item, (*path, i), depth)
        return out

    # A scan-only walk with a memo: the hits of _mapping and _sequence, in the same order, but
    # no path is built and no method called for a key or a string the memo knows holds nothing
    # (most of a trace: the conversation is re-sent in every model call), and nothing is copied.

    def _scan_mapping(self, mapping: dict[Any, Any], path: Path, depth: int) -> dict[Any, Any]:
        secret = self._secret_seen
        clean_keys = self._memo_clean.setdefault(-1, set())
        clean = self._memo_clean.setdefault(depth, set())
        for key, item in mapping.items():
            if type(key) is str:
                named = secret.get(key)
                if named is None:
                    named = self._is_secret(key)
                if named:
                    self._drop(item, (*path, key))
                    continue
                if key not in clean_keys and len(key) >= MIN_LENGTH:
                    self._text_key(key, (*path, key))
            elif isinstance(key, str) and self._is_secret(key):
                self._drop(item, (*path, key))
                continue
            else:
                self._key(key, (*path, key))
            kind = type(item)
            if kind is str:
                if item not in clean and len(item) >= MIN_LENGTH:
                    self.string(item, (*path, key), depth)
            elif kind is dict:
                self._scan_mapping(item, (*path, key), depth)
            elif kind is list:
                self._scan_sequence(item, (*path, key), depth)
            elif not _untouched(item, _NOTHING):
                self.value(item, (*path, key), depth)
        return mapping

    def _scan_sequence(self, items: list[Any], path: Path, depth: int) -> list[Any]:
        clean = self._memo_clean.setdefault(depth, set())
        for i, item in enumerate(items):
            kind = type(item)
            if kind is str:
                if item not in clean and len(item) >= MIN_LENGTH:
                    self.string(item, (*path, i), depth)
            elif kind is dict:
                self._scan_mapping(item, (*path, i), depth)
            elif kind is list:
                self._scan_sequence(item, (*path, i), depth)
            elif not _untouched(item, _NOTHING):
                self.value(item, (*path, i), depth)
        return items

    def _key(self, key: Any, where: Path) -> Any:
        """A mapping key: text scanned, a long integer (an unquoted phone number) too."""
        if isinstance(key, str):
            return self._text_key(key, where)
        if isinstance(key, int) and not isinstance(key, bool) and abs(key) >= 10**8:
            return self._number(key, where)
        return key

    def _text_key(self, key: str, where: Path) -> str:
        if self.rewrite is not None:
            return self._rewritten_string(key, where, -1)  # -1: a key, scanned as plain text
        if self._memo is None:
            return self.plain(key, where)
        known = self._memo.get((key, -1))  # -1: a key, scanned as plain text only
        if known is None:
            before = len(self.hits)
            self.plain(key, where)
            known = tuple((h.path[len(where) :], h.detector, h.value) for h in self.hits[before:])
            self._memo[(key, -1)] = known
            if not known:
                self._memo_clean.setdefault(-1, set()).add(key)
        elif known:
            self.hits.extend(RawHit((*where, *below), name, raw) for below, name, raw in known)
        return key

    def _is_secret(self, name: str) -> bool:
        known = self._secret_seen.get(name)
        if known is None:
            known = self._secret_seen[name] = is_secret_name(name, self._secret)
        return known

    def _drop(self, item: Any, where: Path) -> Any:
        if (
            item is None
            or isinstance(item, bool)
            or item in ("", MARKER)
            # a pseudonym copied here by hand, e.g. "Bearer REDACTED-jwt-..."
            or (isinstance(item, str) and _REDACTED_CREDENTIAL.fullmatch(item))
        ):
            if type(item) not in _JSON_KINDS:
                self.plain_input = False  # kept as it is: "" of a str subclass, say
            return item
        self.hits.append(RawHit(where, SECRET_KEY, item if isinstance(item, str) else _shown(item)))
        return MARKER if self.rewrite else item

    def _number(self, value: int, path: Path) -> Any:
        text = str(value)
        new = self.plain(text, path)
        if new == text:
            return value
        return int(new) if new.isdigit() and not new.startswith("0") else new

    def _json(self, text: str, path: Path, depth: int) -> str | None:
        try:
            doc = json.loads(text)
        except ValueError:
            return None
        if not isinstance(doc, (dict, list)):
            return None
        before = len(self.hits)
        new = self.value(doc, (*path, "(json)"), depth + 1)
        return text if len(self.hits) == before or not self.rewrite else _dump_like(new, text)

    def _with_urls(self, text: str, path: Path, depth: int) -> str:
        out: list[str] = []
        pos = 0
        for found in _URL.finditer(text):
            out.append(self.plain(text[pos : found.start()], path))
            out.append(self._url(found.group(), path, depth))
            pos = found.end()
        out.append(self.plain(text[pos:], path))
        return "".join(out)

    def _url(self, url: str, path: Path, depth: int) -> str:
        base, mark, rest = url.partition("?")
        cut = _FRAGMENT.search(rest)
        query, hash_, fragment = (rest, "", "")
        if cut is not None:
            query, hash_, fragment = rest[: cut.start()], "#", rest[cut.end() :]
        parts = _QUERY_SEPARATOR.split(query) if mark else []
        params = [p if i % 2 else self._param(p, path, depth) for i, p in enumerate(parts)]
        tail = self.plain(fragment, path) if hash_ else ""
        return self.plain(base, path) + mark + "".join(params) + hash_ + tail

    def _param(self, piece: str, path: Path, depth: int) -> str:
        name, eq, raw = piece.partition("=")
        if not eq:
            return self.plain(piece, path)
        decoded_name = unquote_plus(name)
        where = (*path, f"(query:{decoded_name})")
        if self._is_secret(decoded_name):
            kept = self._drop(unquote_plus(raw), where)
            return f"{name}={raw if kept != MARKER else MARKER}"
        decoded = unquote_plus(raw)
        new = self.string(decoded, where, depth + 1)
        return f"{name}={raw if new == decoded else quote(new, safe='@:/-._~')}"


class _Spot(NamedTuple):
    """One hit: text[start:end] of the original, by a detector (None: a URL password), and its
    value as the detector read it (in the normalized view, if it was found there)."""

    start: int
    end: int
    detector: Detector | None
    value: str


def _hits(matcher: Matcher, text: str, seen: View | None) -> list[_Spot]:
    """The hits in text as written and, if it has one, in its view, without overlaps."""
    found, secrets, masks = _spots(matcher, text)
    if seen is not None:
        more, more_secrets, more_masks = _spots(matcher, seen.text, seen)
        masks += more_masks
        written = sorted(secrets + _outside(found, masks), key=lambda spot: spot.start)
        chosen = _merged(more_secrets + _outside(more, masks), written)
        return _merged(chosen, _tails(matcher, text, chosen, written))
    return sorted(secrets + _outside(found, masks), key=lambda spot: spot.start)


def _tails(matcher: Matcher, text: str, chosen: list[_Spot], written: list[_Spot]) -> list[_Spot]:
    """Hits in what a hit of the original that lost to an overlapping hit of the view reaches
    beyond it (`4111\u00a0...1111+86alice@example.com`: the card is the view's, the e-mail
    address after it still needs finding)."""
    tails = []
    for lost in (spot for spot in written if spot not in chosen):
        start = max(c.end for c in chosen if c.start < lost.end and lost.start < c.end)
        for hit in matcher.find(text[start : lost.end]) if start < lost.end else ():
            tails.append(_spot(text, start + hit.start, start + hit.end, hit.detector, None))
    return tails


def _spots(
    matcher: Matcher, text: str, seen: View | None = None
) -> tuple[list[_Spot], list[_Spot], list[_Spot]]:
    """What the detectors find in text (a view's text, whose spans are mapped back through it),
    the URL passwords to drop, and every URL password span (`user:REDACTED@host.example`
    holds no e-mail address, whether dropped yet or not)."""
    found = [_spot(text, h.start, h.end, h.detector, seen) for h in matcher.find(text)]
    if "://" not in text:
        return found, [], []
    passwords = [
        (_password(text, start, end, seen), dropped) for start, end, dropped in url_passwords(text)
    ]
    secrets = [spot for spot, dropped in passwords if not dropped]
    return found, secrets, [spot for spot, _ in passwords]


def _spot(text: str, start: int, end: int, detector: Detector, seen: View | None) -> _Spot:
    where = (start, end) if seen is None else seen.span(start, end)
    return _Spot(*where, detector, text[start:end])


def _password(text: str, start: int, end: int, seen: View | None) -> _Spot:
    """A URL password: in the original, everything between its `:` and `@` (characters the
    view removed included), so nothing of it stays beside the marker."""
    if seen is None:
        return _Spot(start, end, None, text[start:end])
    where = seen.span(start - 1, start)[1], seen.span(end, end + 1)[0]
    return _Spot(*where, None, text[start:end])


def _merged(first: list[_Spot], then: list[_Spot]) -> list[_Spot]:
    """The spots of `first`, and those of `then` that overlap none of them, in text order."""
    kept = _outside(then, first)
    return sorted(first + kept, key=lambda spot: spot.start)


def _outside(spots: list[_Spot], masks: list[_Spot]) -> list[_Spot]:
    return [s for s in spots if not any(s.start < m.end and m.start < s.end for m in masks)]


def url_passwords(text: str) -> Iterator[tuple[int, int, bool]]:
    """The span of the password in each URL's userinfo (`scheme://user:password@host`), and
    whether it is dropped already (the marker, or a pseudonym copied there)."""
    for found in _AUTHORITY.finditer(text):
        authority = found.group(1)
        at = authority.rfind("@")
        colon = authority.find(":", 0, max(at, 0))
        if colon < 0 or colon + 1 == at:
            continue
        password = authority[colon + 1 : at]
        dropped = password == MARKER or _REDACTED_CREDENTIAL.fullmatch(password) is not None
        start = found.start(1) + colon + 1
        yield start, start + len(password), dropped


def _dump_like(doc: Any, original: str) -> str:
    """Re-serialise JSON deterministically, in the original's broad style."""
    indent = 2 if "\n" in original.strip() else None
    spaced = indent is None and _JSON_SEPARATOR_SPACE.search(original) is not None
    return json.dumps(
        doc,
        ensure_ascii="\\u" in original,
        indent=indent,
        separators=(", ", ": ") if spaced else (",", ": " if indent else ":"),
    )


def _shown(item: Any) -> str:
    """A dropped value that is no string, as one line of JSON: keys sorted where they can be
    (a mapping may mix key types, e.g. `{1: a, b: c}`), any other scalar as its text."""
    try:
        return json.dumps(item, sort_keys=True, ensure_ascii=False, default=str)
    except TypeError:
        return json.dumps(item, ensure_ascii=False, default=str)
