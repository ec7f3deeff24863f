"""io/yaml_text remembers each written line (by key, value and indentation), folds long text by
searching for spaces, and finds a container met twice once the document is written: the bytes
must still be PyYAML's wherever a remembered line could be mistaken for another."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from corpus_tool.io import files, yaml_stream, yaml_text
from tests.io.test_dump_stream import _reference
from tests.io.test_dump_text import _text


def test_equal_values_of_other_types_are_not_taken_for_each_other() -> None:
    # True == 1 == 1.0 and 0.0 == -0.0 in Python; each is written its own way
    values: list[Any] = [1, True, 1.0, 0, False, 0.0, -0.0, None, "null", "1", "true", ""]
    doc = {"a": [{"k": v} for v in values], "b": {"c": [{"k": v, "j": v} for v in values]}}
    doc["d"] = [{"k": v} for v in reversed(values)]
    assert _text(doc) == _reference(doc)


def test_one_key_and_value_at_every_depth_and_after_a_dash() -> None:
    long = "a sentence that is long enough to be folded by the emitter at its width " * 3
    doc: Any = {"k": long, "s": "short", "n": 7}
    for _ in range(6):
        doc = {"k": long, "s": "short", "x": [doc, {"k": long}, [doc.copy(), "short"]], "y": doc}
        doc = {"first": [{"k": long, "s": "short"}, {"s": "short", "k": long}], "next": doc}
        doc = json.loads(json.dumps(doc))  # no container met twice
    assert _text(doc) == _reference(doc)


def test_a_mapping_in_a_sequence_whose_first_value_flushes_the_lines() -> None:
    many = [{"role": "tool", "content": f"line {i}"} for i in range(3000)]
    doc = {"events": [{"messages": many, "k": "v"}, {"k": "v", "messages": many[:10]}]}
    doc["events"].append({"nested": {"messages": many}, "k": "v"})
    doc = json.loads(json.dumps(doc))
    assert _text(doc) == _reference(doc)


def test_a_key_of_a_str_subclass_equal_to_one_written_is_not_written_as_it() -> None:
    class Name(str):
        pass

    doc = {"n": {"k": "v"}, "m": {Name("k"): "v"}}
    with pytest.raises(yaml_stream.Unplain):
        _text(doc)


def test_a_container_inside_itself_or_met_twice_falls_back_to_the_same_bytes() -> None:
    loop: list[Any] = [1, "a"]
    loop.append(loop)
    mapping: dict[str, Any] = {"x": {"k": "v"}}
    mapping["x"]["self"] = mapping
    leaf = {"k": "v"}
    for doc in [loop, {"top": loop}, mapping, {"a": [leaf, {"b": [leaf]}]}, [[leaf], leaf]]:
        with pytest.raises(yaml_stream.Unplain):
            _text(doc)
        assert files.dump_yaml(doc) == _reference(doc)


def test_a_document_too_deep_still_raises_as_before() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = {"k": deep}
    with pytest.raises(RecursionError):
        _text(deep)


@pytest.mark.parametrize("seed", range(3))
def test_folding_runs_of_spaces_quotes_and_wide_characters(seed: int) -> None:
    rng = random.Random(seed)
    pieces = ["word", "it's", "''", "a: b", "中文字", "x" * 30, "é", "-", "#", "1e3", "no"]
    doc: dict[str, Any] = {}
    for i in range(150):
        seps = [" ", " ", " ", "  ", "   "]
        text = rng.choice(pieces)
        for _ in range(rng.randint(1, 40)):
            text += rng.choice(seps) + rng.choice(pieces)
        key = "k" * rng.randint(1, 60) + str(i)
        doc[key] = text
        doc[f"list{i}"] = [text, {key: text}]
    assert _text(doc) == _reference(doc)


def test_lines_forgotten_past_the_bound_are_written_again_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The remembered lines of a depth are dropped once there are more than the bound (memory):
    with a bound of 3, a document whose keys and values recur across many distinct lines at
    several depths is written through clear after clear, and must still be PyYAML's bytes."""
    monkeypatch.setattr(yaml_text, "_LIMIT", 3)
    rng = random.Random(7)
    words = ["a", "b", "yes", "1", "null", "x y", "", "- z", "long " * 30]
    doc = {
        "events": [
            {
                "k": rng.choice(words),
                "n": rng.randint(0, 5),
                "none": None,
                "deep": {"k": rng.choice(words), "m": {"k": rng.choice(words), "l": [i, i % 3]}},
            }
            for i in range(300)
        ]
    }
    assert _text(doc) == _reference(doc)
