"""The rewriting walk of `corpus add`, made cheaper for long traces, gives what it gave:

- it copies each mapping and list and replaces only what changes: its values, hits, rewrites
  asked and key order are those of a walk that rebuilds every mapping key by key;
- it tells whether the value held only what JSON holds, so a streamed add skips
  schema.is_plain's own walk over every batch: the answer never calls a value plain that is
  not (the compiled schema check would then answer for it), and calls every plain one plain
  (or the walk saves nothing).
"""

from __future__ import annotations

import collections
import enum
import random
from typing import Any

import pytest

from corpus_tool.io import schema
from corpus_tool.redact import RedactionKey, Redactor
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
        assert clean == REDACTOR(value).value
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
    """The rewriting walk without its fast lanes: every mapping rebuilt key by key, every
    item of a list walked through `value` (what the copying walk must give, byte for byte)."""

    def _mapping(self, mapping: dict[Any, Any], path: Any, depth: int) -> dict[Any, Any]:
        return self._mapping_rebuilt(mapping, path, depth)

    def _sequence(self, items: list[Any], path: Any, depth: int) -> list[Any]:
        return [self.value(item, (*path, i), depth) for i, item in enumerate(items)]


def _rewrite(text: str, detector: Any) -> str:
    return text if text.startswith("a") else f"R-{detector.name}-{len(text)}"


@pytest.mark.parametrize("seed", range(4))
def test_the_copying_walk_gives_the_key_by_key_walks_value_hits_and_key_order(seed: int) -> None:
    rng = random.Random(seed)
    renamed = 0
    for _ in range(300):
        value = _value(rng)
        fast, slow = Walk(_rewrite, ["session_cookie"]), _KeyByKey(_rewrite, ["session_cookie"])
        got, want = fast.value(value), slow.value(value)
        assert repr(got) == repr(want)  # key order too, which == on dicts does not see
        assert [tuple(h) for h in fast.hits] == [tuple(h) for h in slow.hits]
        assert fast._asked == slow._asked  # each rewrite asked as often (the counts)
        renamed += repr(got).count("'R-") > repr(value).count("'R-")
    assert renamed > 50  # values (and keys) were replaced
