"""dump_yaml writes plain documents as text, line by line (io/yaml_text): the bytes must be
PyYAML's (through its own node tree and libyaml's emitter), for every kind of scalar at every
depth and column, as key, value and item, and for a trace as `corpus add` writes it."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
import yaml

from bench.long_incident import long_incident
from corpus_tool.io import files, yaml_stream, yaml_text
from tests.io.test_dump_stream import EDGE, _reference

WORDS = [
    *("a", "bb", "it's", "x:y", "a: b", "#c", "d #e", "-", "--", "中文", "é", "'q'", "1e3"),
    *("no", "null", "12:30", "?", ":", "-x", "@a", "a,b", "[x]", "ok.", "end:", "k" * 40),
]


def _text(doc: Any) -> str:
    """yaml_text's own answer (no fallback): Unplain when it does not write `doc`."""
    options = dict(yaml_text.OPTIONS)

    def events(part: Any) -> str:
        return yaml_stream.dump(part, files._Dumper, files._str_style, **options)

    return yaml_text.dump(doc, files._str_style, events, options)


def _string(rng: random.Random) -> Any:
    if rng.random() < 0.2:
        return rng.choice(EDGE)
    sep = rng.choice([" ", " ", " ", "  ", "", "\n", "\n\n"])
    return sep.join(rng.choice(WORDS) for _ in range(rng.choice([1, 2, 5, 15, 30, 60])))


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 5 or roll < 0.5:
        return _string(rng)
    if roll < 0.75:
        keys = [rng.choice([*WORDS, "role", "k" * rng.randint(1, 30)]) for _ in range(4)]
        return {k: _value(rng, depth + 1) for k in keys[: rng.randint(0, 4)]}
    return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


@pytest.mark.parametrize("seed", range(4))
def test_random_documents_are_written_as_pyyaml_writes_them(seed: int) -> None:
    rng = random.Random(seed)
    written = 0
    for _ in range(120):
        doc = {f"k{i}" * rng.randint(1, 9): _value(rng, 0) for i in range(rng.randint(1, 4))}
        try:
            text = _text(doc)
        except yaml_stream.Unplain:
            continue  # an open-ended literal (`|+`): the event stream writes it
        assert text == _reference(doc), doc
        written += 1
    assert written >= 90  # the text writer wrote most of them itself


def test_folding_at_every_column_and_depth_is_the_emitters() -> None:
    sentence = "word it's a: b " * 12 + "end"  # quoted (": "), folded past column 100
    plain = "word and more " * 12 + "end"
    wide = "查一下 A307 的库存，并告诉我 " * 9 + "é"  # counted in characters, not bytes
    for depth in range(6):
        for width in range(1, 40, 3):
            inner: Any = {"k" * width: sentence, "p" * width: plain, "l": [sentence, plain, wide]}
            inner["w" * width] = wide
            for _ in range(depth):
                inner = {"a": [inner, {"b": json.loads(json.dumps(inner))}]}
            assert _text(inner) == _reference(inner)


def test_edge_scalars_as_values_items_and_keys() -> None:
    strings = [v for v in EDGE if isinstance(v, str) and v]
    doc = {
        "values": {f"k{i}": v for i, v in enumerate(EDGE)},
        "items": [EDGE, [list(EDGE)]],
        "keys": {s: 1 for s in strings if "\n" not in s and s not in "\x85\u2028" and len(s) < 100},
        "empty": [{}, [], {"e": {}}, {"f": []}],
    }
    assert _text(doc) == _reference(doc)


def test_a_long_incident_as_add_writes_it_needs_no_fallback() -> None:
    doc = json.loads(json.dumps(long_incident(120)))  # fresh copies, as the importer gives
    assert _text(doc) == _reference(doc) == files.dump_yaml(doc)


def test_what_it_does_not_write_falls_back_to_the_same_bytes() -> None:
    shared = {"a": [1]}
    for doc in [{"x": shared, "y": shared}, {5: "int key"}, {"k": "x\n\n"}, "top", {"k": {1}}]:
        with pytest.raises(yaml_stream.Unplain):
            _text(doc)
        assert files.dump_yaml(doc) == _reference(doc)


def test_the_quoting_rules_asked_at_once_answer_as_every_reader_resolves() -> None:
    """is_plain_safe asks the readers' implicit rules directly; the answer must be what each
    reader's own `resolve` gives, on YAML-ish spellings and on every string of a trace."""
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.resolver import VersionedResolver

    from corpus_tool.io import yaml_quote

    readers = [(yaml.resolver.Resolver(), yaml.ScalarNode)]
    readers += [(VersionedResolver(version=v), ScalarNode) for v in ((1, 1), (1, 2))]
    trace = _text(json.loads(json.dumps(long_incident(60))))
    spellings = [*WORDS, *(v for v in EDGE if isinstance(v, str)), *trace.split()]
    spellings += ["0x1F", "0b101", "+1", "-.5", "1_000", "1:20", "2025-06-01 10:00", "<<", "="]
    spellings += ["Yes", "NO", "Off", "TRUE", "~", ".NaN", "-.Inf", "190:20:30.15", "0o7"]
    rng = random.Random(27)  # and random strings of the characters the rules read
    alphabet = "0123456789.:-+_~, eExXoObByYnNtTfF<=!&*"
    spellings += ["".join(rng.choices(alphabet, k=rng.randint(1, 9))) for _ in range(20000)]
    for text in dict.fromkeys(spellings):
        truth = all(str(r.resolve(node, text, (True, False))) == STR for r, node in readers)
        assert yaml_quote._resolves_to_str(text) is truth, text
    with pytest.raises(ValueError, match="cannot combine"):  # a group would be renumbered
        yaml_quote._any_of([re.compile(r"(a)\1")])


STR = "tag:yaml.org,2002:str"
