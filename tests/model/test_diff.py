"""The one diff engine: absent is never a value, numbers compare by value, paths are exact."""

from __future__ import annotations

from corpus_tool.model.field_diff import FieldDiff, field_diff, same
from corpus_tool.model.values import ABSENT


def test_diff_a_recorded_absent_lookalike_string_differs_from_a_missing_value() -> None:
    # the old marker was the string "<absent>": a value that *was* that string compared equal
    assert field_diff({"a": "<absent>"}, {}) == [FieldDiff("$.a", "<absent>", ABSENT)]
    assert not same({"a": "<absent>"}, {})


def test_diff_numbers_by_value_and_booleans_apart() -> None:
    assert same({"n": 1}, {"n": 1.0})
    assert not same(True, 1)
    assert not same("1", 1)
    assert same({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})


def test_diff_lists_element_by_element_and_maps_in_document_order() -> None:
    found = field_diff({"x": [1, 2], "y": 1}, {"z": 0, "x": [1], "y": 2})
    assert [d.path for d in found] == ["$.x[1]", "$.y", "$.z"]
    assert found[0] == FieldDiff("$.x[1]", 2, ABSENT)
    assert found[2].data() == {"path": "$.z", "actual": 0}


def test_diff_subset_ignores_unlisted_top_level_keys_and_limit_stops() -> None:
    assert field_diff({"a": 1}, {"a": 1, "b": 2}, "", extra=False) == []
    assert [d.path for d in field_diff({"a": 1}, {"a": 2, "b": 2}, "")] == ["a", "b"]
    assert len(field_diff(list(range(50)), [], limit=20)) == 20


def test_absent_is_one_falsy_singleton() -> None:
    import pickle

    assert pickle.loads(pickle.dumps(ABSENT)) is ABSENT
    assert not ABSENT
    assert repr(ABSENT) == "<absent>"
