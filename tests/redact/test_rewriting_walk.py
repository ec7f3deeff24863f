"""The rewriting walk of `corpus add`, made cheaper for long traces, gives what it gave:

- it copies each mapping and list and replaces only what changes: its values, hits, rewrites
  asked and key order are those of a walk that rebuilds every mapping key by key;
- given the value to own (a streamed add's batch, parsed for the walk), it changes it where
  it is instead of copying it, and the result is the same;
- it tells whether the value held only what JSON holds, so a streamed add skips
  schema.is_plain's own walk over every batch: the answer never calls a value plain that is
  not (the compiled schema check would then answer for it), and calls every plain one plain
  (or the walk saves nothing).
"""

from __future__ import annotations

import collections
import copy
import enum
import random
from typing import Any

import pytest

from corpus_tool.io import schema
from corpus_tool.redact import RedactionKey, Redactor, pseudonym
from corpus_tool.redact.scanner import Walk
from tests.redact.test_scan_memo import _value


class _Text(str):
    pass


class _Level(enum.IntEnum):
    HIGH = 3


def _odd(rng: random.Random) -> Any:
    """Something JSON does not parse to, some of it equal to what it does."""
    return rng.choice(
        [
            (1, 2),
            _Text("written by a subclass"),
            _Text(""),
            _Text("alice@example.com"),
            _Level.HIGH,
            collections.OrderedDict(a=1),
            {7: "an integer key"},
            {_Text("key"): "a str subclass key"},
            {_Text("password"): "hunter2-hunter2"},
            b"bytes",
            {1, 2},
        ]
    )


def _planted_odd(rng: random.Random, value: Any) -> Any:
    """`value` with one odd value put somewhere in it (under a secret name, now and then)."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        return {**value, key: _planted_odd(rng, value[key])}
    if isinstance(value, list) and value and rng.random() < 0.7:
        at = rng.randrange(len(value))
        return [*value[:at], _planted_odd(rng, value[at]), *value[at + 1 :]]
    name = rng.choice(["note", "password", "api_key", "items"])
    return {name: _odd(rng), "rest": value}


REDACTOR = Redactor(RedactionKey(b"k" * 32, "k-test"), ("session_cookie",))


@pytest.mark.parametrize("seed", range(4))
def test_told_plain_only_when_the_result_is_and_always_when_the_value_was(seed: int) -> None:
    rng = random.Random(seed)
    told = {True: 0, False: 0}
    for _ in range(300):
        value = _value(rng)
        if rng.random() < 0.5:
            value = _planted_odd(rng, value)
        (clean, _), plain = REDACTOR.told(value)
        if plain:
            assert schema.is_plain(clean), value
        if schema.is_plain(value):
            assert plain, value
        told[plain] += 1
    assert told[True] > 50 and told[False] > 50  # both answers were asked for


def test_a_secret_named_container_is_dropped_plain_and_a_kept_subclass_is_not() -> None:
    (clean, replaced), plain = REDACTOR.told({"password": [(1, 2)], "token": _Text("")})
    assert clean == {"password": "REDACTED", "token": ""} and replaced == 1
    assert type(clean["token"]) is _Text and not plain
    (clean, _), plain = REDACTOR.told({"password": [(1, 2)], "token": None})
    assert plain and schema.is_plain(clean)


class _KeyByKey(Walk):
    """The rewriting walk as it was before the copying one: every mapping rebuilt key by key
    (a key's hits, then its value's), every item of a list walked through `value`. What the
    copying walk must give, key order, hits and rewrites asked included."""

    def _mapping(self, mapping: dict[Any, Any], path: Any, depth: int) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key, item in mapping.items():
            where = (*path, key)
            if isinstance(key, str) and self._is_secret(key):
                out[key] = self._drop(item, where)
                continue
            new_key = self._key(key, where)
            out[new_key] = self.value(item, where, depth)
        return out

    def _sequence(self, items: list[Any], path: Any, depth: int) -> list[Any]:
        return [self.value(item, (*path, i), depth) for i, item in enumerate(items)]


def _rewrite(text: str, detector: Any) -> str:
    """A value starting with `a` kept (as the allow-list keeps one), any other replaced."""
    return text if text.startswith("a") else f"R-{detector.name}-{len(text)}"


def _keys(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [k for key, item in value.items() for k in (key, *_keys(item))]
    if isinstance(value, list):
        return [k for item in value for k in _keys(item)]
    return []


def _same_walk(value: Any) -> Any:
    fast, slow = Walk(_rewrite, ["session_cookie"]), _KeyByKey(_rewrite, ["session_cookie"])
    got, want = fast.value(value), slow.value(value)
    assert repr(got) == repr(want)  # key order too, which == on dicts does not see
    assert [tuple(h) for h in fast.hits] == [tuple(h) for h in slow.hits]
    assert fast._asked == slow._asked  # each rewrite asked as often (the counts)
    return got


@pytest.mark.parametrize("seed", range(4))
def test_the_copying_walk_gives_the_key_by_key_walks_value_hits_and_key_order(seed: int) -> None:
    rng = random.Random(seed)
    renamed_keys = replaced_values = 0
    for _ in range(300):
        value = _value(rng)
        got = _same_walk(value)
        renamed_keys += any(isinstance(k, str) and k.startswith("R-") for k in _keys(got))
        replaced_values += repr(got).count("'R-") > repr(value).count("'R-")
    assert renamed_keys > 20  # keys holding personal data were renamed (the rebuilt order)
    assert replaced_values > 50


def test_a_renamed_key_meeting_a_later_key_keeps_the_first_place_and_the_later_value() -> None:
    value = {"to": "x", "mail bob@example.org": 1, "R-email-15": 2, "tail": [{"k": "v"}]}
    got = _same_walk(value)
    assert list(got) == ["to", "mail R-email-15", "R-email-15", "tail"]
    collided = _same_walk({"bob@example.org": 1, "R-email-15": 2, "z": 3})
    assert list(collided.items()) == [("R-email-15", 2), ("z", 3)]


def test_a_dict_subclass_comes_out_a_dict_with_its_values_redacted() -> None:
    value = collections.OrderedDict(note="write to bob@example.org", n=1)
    got = _same_walk(value)
    assert type(got) is dict and got == {"note": "write to R-email-15", "n": 1}


@pytest.mark.parametrize("seed", range(4))
def test_a_walk_owning_the_value_changes_it_in_place_to_what_the_copying_walk_gives(
    seed: int,
) -> None:
    rng = random.Random(seed)
    in_place = 0
    for _ in range(300):
        value = _value(rng)
        if rng.random() < 0.3:
            value = _planted_odd(rng, value)
        before = copy.deepcopy(value)
        copying = Walk(_rewrite, ["session_cookie"])
        want = copying.value(value)
        assert repr(value) == repr(before)  # the copying walk leaves its input as it was
        owning = Walk(_rewrite, ["session_cookie"], own=True)
        got = owning.value(value)
        assert repr(got) == repr(want)  # key order too
        assert [tuple(h) for h in owning.hits] == [tuple(h) for h in copying.hits]
        assert owning._asked == copying._asked and owning.plain_input == copying.plain_input
        if type(value) is list or (type(value) is dict and list(got) == list(before)):
            assert got is value  # changed where it is, not copied (no key renamed)
            in_place += repr(got) != repr(before)
    assert in_place > 50  # values were changed in place, not only passed through


def test_a_streamed_batch_is_redacted_in_place_and_a_whole_document_is_not() -> None:
    batch = [{"seq": 1, "note": "write to bob@example.org", "items": [{"to": "bob@example.org"}]}]
    (clean, replaced), plain = REDACTOR.told(batch, own=True)
    assert clean is batch and plain and replaced == 2
    assert "bob@example.org" not in repr(batch)
    document = {"note": "write to bob@example.org"}
    redacted = REDACTOR(document).value
    address = pseudonym("bob@example.org", "email", REDACTOR.key)  # the keyed pseudonym alone
    assert redacted == {"note": f"write to {address}"} and address != "bob@example.org"
    assert redacted is not document and document == {"note": "write to bob@example.org"}
