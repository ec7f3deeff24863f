"""A JSON incident nested deeper than MAX_DEPTH is refused; one at the limit is read (the check
looks only at lists and mappings, a level at a time: a long incident holds millions of values)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus_tool.errors import InputError
from corpus_tool.io import files


def _nested(levels: int, leaf: object) -> object:
    value = leaf
    for i in range(levels):
        value = [value] if i % 2 else {"a": value}
    return value


@pytest.mark.parametrize("leaf", [1, "x", [], {}, [1], {"b": None}])
def test_the_limit_counts_every_value_below_it(leaf: object, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    for levels in range(files.MAX_DEPTH - 3, files.MAX_DEPTH + 3):
        raw = json.dumps(_nested(levels, leaf)).encode()
        # ground truth: the depth of the deepest value, counted on the text's brackets
        deepest = max(raw.count(b"[") + raw.count(b"{") - (leaf in ([], {})), 0)
        if deepest > files.MAX_DEPTH:
            with pytest.raises(InputError, match="nested deeper than"):
                files.parse_json(raw, path)
        else:
            assert files.parse_json(raw, path) == json.loads(raw)
