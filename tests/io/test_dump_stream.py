"""dump_yaml writes plain documents as a stream of emitter events (no node tree): the bytes must
be PyYAML's, value for value, on every kind of scalar and on traces as `corpus add` writes them."""

from __future__ import annotations

import datetime
import random
from typing import Any

import yaml

from bench.corpus import trace_doc
from bench.long_incident import long_incident
from corpus_tool.io import files

EDGE: list[Any] = [
    *(1.5, 1e20, float("inf"), -float("inf"), float("nan"), -0.0, 3.0, 1e-7, 10**30, -5),
    *(True, False, None, "", "no", "yes", "Y", "on", "1e3", "0o17", ".inf", "123", "12:30"),
    *("null", "~", "-", "- a", "#x", "a: b", " lead", "trail ", "\t", "\x85", "\u2028", "<<"),
    *("=", "'q'", '"d"', "2025-06-01", "2025-06-01T00:00:00Z", "a\nb", "a\n ", "a\r\nb"),
    *("x" * 300 + " y" * 100, "中文 " * 60, "\ufeffbom", "\x00nul", "emoji 😀", "a #b"),
]


def _reference(data: Any) -> str:
    """yaml.dump with dump_yaml's options and string styles, through PyYAML's own nodes."""

    class Reference(yaml.CSafeDumper):  # type: ignore[misc]
        pass

    Reference.add_representer(str, files._str_representer)
    return yaml.dump(
        data,
        Dumper=Reference,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )


def test_every_kind_of_scalar_is_written_as_pyyaml_writes_it() -> None:
    doc = {
        "values": EDGE,
        **{f"k{i}": value for i, value in enumerate(EDGE)},
        5: "int key",
        "": "empty key",
        True: "bool key",
        None: "none key",
        1.5: "float key",
        "nested": [[[]], [{}], {"a": {"b": [1, [2, [3]]]}}],
    }
    assert files.dump_yaml(doc) == _reference(doc)


def test_a_dict_met_twice_is_still_an_alias_and_other_types_still_dump() -> None:
    shared = {"a": [1]}
    doc = {"x": shared, "y": shared, "z": [shared["a"], shared["a"]]}
    assert "&id001" in files.dump_yaml(doc) and files.dump_yaml(doc) == _reference(doc)
    dated = {"day": datetime.date(2025, 6, 1), "set": {1, 2}}
    assert files.dump_yaml(dated) == _reference(dated)


def test_generated_traces_and_a_long_incident_are_written_byte_for_byte() -> None:
    rng = random.Random(5)
    for doc in [trace_doc(f"c{i}", rng, i == 0) for i in range(40)] + [long_incident(400)]:
        assert files.dump_yaml(doc) == _reference(doc)
