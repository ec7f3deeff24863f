"""Documents the writer makes of random values (hypothesis) read back through the layout reader
as libyaml reads them: the same values, types and comment spans (see test_yaml_read)."""

from __future__ import annotations

from typing import Any

import hypothesis
import hypothesis.strategies as st
import pytest

from corpus_tool.io import files
from tests.io.test_yaml_read import WORDS, _outcome, _reference

_chars = st.characters(blacklist_categories=("Cs",))
_strings = st.one_of(
    st.text(_chars, max_size=30),
    st.sampled_from(WORDS),
    st.lists(st.sampled_from([*WORDS[:20], "word", "a", "  ", " ", "\n", "\n\n"]), max_size=60).map(
        " ".join
    ),
    st.lists(st.sampled_from(["The customer", "asked why", "订单", "x" * 30]), max_size=40).map(
        " ".join
    ),  # long text the writer folds at spaces
    st.lists(st.sampled_from(["line", " lead", "trail ", "", "#h", "k: v"]), max_size=6).map(
        "\n".join
    ),  # literal blocks, indented or not, blank lines, every chomping
)
_scalars = st.one_of(_strings, st.integers(), st.floats(allow_nan=True), st.booleans(), st.none())
_keys = st.one_of(
    st.text(_chars, max_size=12), st.sampled_from(WORDS), st.integers(), st.booleans(), st.none()
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=25,
)
_documents = st.one_of(
    st.dictionaries(_keys, _values, min_size=1, max_size=5),
    st.lists(_values, min_size=1, max_size=4),
)


@hypothesis.settings(
    max_examples=400, deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow]
)
@hypothesis.given(_documents)
def test_what_the_writer_writes_reads_back_as_libyaml_reads_it(doc: Any) -> None:
    text = files.dump_yaml(doc)
    with pytest.MonkeyPatch.context() as patch:
        assert _outcome(text) == _reference(text, patch), text
