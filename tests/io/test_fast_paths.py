"""The fast paths of validation agree with the slow ones they stand in for, value for value.

- the YAML loader's fast build against PyYAML's own constructor (same value, or same error);
- the comment check from scalar spans against scanning every token;
- the compiled schema check against `jsonschema` (same findings, same messages).

The reference is the slow path itself, run on the same input: hand-picked hostile documents,
every file of the example corpus, and seeded random ones.
"""

from __future__ import annotations

import copy
import math
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.errors import InputError
from corpus_tool.io import files, schema, yaml_build
from corpus_tool.redact.comments import yaml_comments
from tests.conftest import EXAMPLES

TRICKY = [
    "a: 1\nb: [1, 2]\n",
    "a: &x [1, 2]\nb: *x\n",  # aliases
    "base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n",  # a merge key
    "a: !!binary aGVsbG8=\n",
    "a: !!set {x, y}\n",
    "a: !!timestamp 2026-01-01\nb: 2026-01-01\n",
    "a: !!omap [x: 1, y: 2]\n",
    "a: !!str 12\nb: !!int '7'\nc: !!float '1'\n",
    "a: !custom x\n",
    "a: 0x1f\nb: 0o17\nc: 010\nd: 1_000\ne: +1\nf: -0\ng: 1:20\nh: 0b101\n",
    "a: .inf\nb: -.Inf\nc: .nan\nd: 1e3\ne: 1_0.5\nf: 6.8523015e+5\ng: 1.0\n",
    "a: yes\nb: No\nc: ON\nd: off\ne: 'yes'\nf: y\n",
    "a: ~\nb: null\nc:\nd: Null\n",
    "1: a\ntrue: b\nnull: c\n1.5: d\n",
    "1: a\n0x1: b\n",  # two spellings of one key: the last wins, as PyYAML does
    "? [a, b]\n: c\n",  # an unhashable key
    "a: 1\na: 2\n",
    "a: {b: 1, b: 2}\nc: 1\nc: 2\n",  # duplicates at two depths: the first PyYAML meets wins
    "a:\n  - {x: 1}\n  - {x: 1, x: 2}\n",
    "- " * 201 + "x\n",  # too deep
    "- " * 200 + "x\n",
    "a: &a [1, 1]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: &d [*c, *c]\ne: [*d, *d]\n",
    "a: " + "9" * 5000 + "\n",  # more digits than int() takes
    "a: 'x'\n---\nb: 1\n",  # two documents
    "",
    "# only a comment\n",
    "just a string\n",
    "[1, 2, 3]\n",
    "a: =\n",
    "a: [1, {b: [2, {c: 3}]}]\n",
    "\ufeffa: 1\n",
    "a: 'it''s'\nb: \"tab\\there\\u00e9\"\n",
    "c: |\n  line\n  # not a comment\nd: >-\n  folded\n  text\n",
    "a: !!python/object:os.system x\n",
    "!!map {a: 1}\n",
    "!!seq [1]\n",
    "a: !!str {b: 1}\n",
]


def _reference(text: str | bytes, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What the loader gives with its fast build switched off: PyYAML's constructor."""

    def unusual(*args: object) -> Any:
        raise yaml_build.Unusual

    with monkeypatch.context() as patch:
        patch.setattr(yaml_build, "build", unusual)
        patch.setattr(files, "_read_written", lambda text: None)  # the layout reader too
        return _outcome(text)


def _outcome(text: str | bytes) -> Any:
    try:
        return ("value", _typed(files.parse_yaml(text, Path("doc.yaml"))))
    except InputError as err:
        return ("error", err.message, err.line)


def _typed(value: Any) -> Any:
    """The value with every leaf tagged by its type: True is not 1, 1.0 is not 1, nan is nan."""
    if isinstance(value, dict):
        return [("map", _typed(k), _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return ["seq", *(_typed(v) for v in value)]
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, repr(value))


@pytest.mark.parametrize("text", TRICKY)
def test_the_fast_build_agrees_with_pyyaml_on_tricky_documents(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _outcome(text) == _reference(text, monkeypatch)


def test_the_fast_build_agrees_on_every_example_file(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = sorted((EXAMPLES / "corpus").rglob("*.yaml"))
    assert len(paths) > 10
    for path in paths:
        raw = path.read_bytes()
        assert _outcome(raw) == _reference(raw, monkeypatch), path


PLAIN = ["yes", "no", "on", "0x1F", "010", "1_000", "1:30", ".5", "-.inf", "~", "null", "true",
         "2026-01-01", "12:30:00", "0o7", "+12", "1e5", "=", "<<", "a#b", "x # y", "-", "é",
         "[", "{a", "'q'", "\"d\"", "key: v", "#", "  lead", "trail  ", "\t", "line\nbreak",
         "中文 #标签", "https://x.example/a?b=1#frag"]  # fmt: skip


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.45:
        return rng.choice([*PLAIN, rng.randint(-(10**20), 10**20), rng.random() * 1e6, True,
                           False, None, 0, -1, 1.0])  # fmt: skip
    if roll < 0.75:
        return {str(rng.choice(PLAIN)) + str(i): _random_value(rng, depth + 1)
                for i in range(rng.randint(0, 4))}  # fmt: skip
    return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


@pytest.mark.parametrize("seed", range(8))
def test_the_fast_build_agrees_on_random_documents(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        value = {"doc": _random_value(rng)}
        style = rng.choice([None, "'", '"'])
        text = yaml.dump(value, default_flow_style=rng.choice([None, True, False]),
                         default_style=style, allow_unicode=True)  # fmt: skip
        assert _outcome(text) == _reference(text, monkeypatch), text


COMMENTED = [
    "a: 1 # note\n",
    "# head\na: 1\n",
    "a: |  # header comment\n  text # kept\n  ## heading\n\n# after the block\nb: 2\n",
    "a: >-\n  folded #1\n\n  # still text\n# comment\nb: 1\n",
    "a: [1, # inside a flow\n  2]\n",
    "a: 'q # not' # yes\n",
    'a: "d # not"\n',
    "a: x#y\nb: 'p' #c\n",
    "a: |\n  text\n # less indented comment\nb: 1\n",
    "a: !tag#x value\n",
    "a: 'multi\n  line # in quotes'\n",
    "\ufeffa: 1 # after a BOM\n",
    'a: 中文 #标签\nb: "中文 #内" # 外\n',
    "k: v\n---\n# second doc\n",
]


@pytest.mark.parametrize("text", COMMENTED)
def test_comments_from_spans_are_the_comments_a_full_scan_finds(text: str) -> None:
    try:
        _, spans = files.parse_yaml_spans(text.encode(), Path("doc.yaml"))
    except InputError:
        spans = None
    assert yaml_comments(text, spans) == yaml_comments(text)


def test_comments_agree_on_every_example_file_and_random_documents() -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted((EXAMPLES / "corpus").rglob("*.yaml"))]
    rng = random.Random(11)
    for _ in range(200):
        value = {"doc": _random_value(rng)}
        text = yaml.dump(value, default_flow_style=rng.choice([None, False]), allow_unicode=True)
        texts.append(text + rng.choice(["", "# tail\n", "x: 1 # c\n"]))
    for text in texts:
        try:
            _, spans = files.parse_yaml_spans(text.encode(), Path("doc.yaml"))
        except InputError:  # a flow mapping with a key appended: not YAML, no spans
            spans = None
        assert yaml_comments(text, spans) == yaml_comments(text), text


ODD_VALUES = ["abc\n", "٢٠٢٦-01-01", "２０２６-01-01", "", " ", "x" * 81, "A-Upper", "a b",
              1.0, 1, True, False, None, [], {}, float("nan"), float("inf"), 2**70, -3,
              "fp-0123456789abcdef\n", "all", "tools.required", "2026-12-31", "ä:rün",
              "a.b:run", "a:run\n", "refund", ["x"], [1, 1], {"k": "v"}]  # fmt: skip


def _paths(value: Any, where: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [where]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*where, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*where, i))
    return found


def _mutated(doc: Any, rng: random.Random) -> Any:
    """A copy of `doc` with one value replaced, or one key added or removed."""
    doc = copy.deepcopy(doc)
    where = rng.choice(_paths(doc)[1:])
    parent = doc
    for part in where[:-1]:
        parent = parent[part]
    roll = rng.random()
    if roll < 0.7:
        parent[where[-1]] = rng.choice(ODD_VALUES)
    elif roll < 0.85 and isinstance(parent, dict):
        del parent[where[-1]]
    elif isinstance(parent, dict):
        parent[rng.choice(["extra", "note", "result", "error", "kind", "missing"])] = "x"
    return doc


KINDS = {"trace.yaml": "trace", "expected.yaml": "expected", "corpus.yaml": "corpus"}


@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_schema_check_never_passes_what_jsonschema_refuses(seed: int) -> None:
    rng = random.Random(seed)
    sources = [p for p in sorted((EXAMPLES / "corpus").rglob("*.yaml")) if p.name in KINDS]
    waiver = {"schema_version": 1, "id": "W-1", "case": "refund-success", "reason": "r",
              "owner": "o", "expires": "2026-12-31", "checks": ["tools.required"]}  # fmt: skip
    documents = [(KINDS[p.name], files.read_yaml(p)) for p in sources] + [("waiver", waiver)]
    passed = 0
    for kind, doc in documents:
        check = schema.compiled(kind)
        assert check is not None
        for _ in range(100):
            changed = _mutated(doc, rng)
            if check(changed):  # what the fast path would let through unexplained
                passed += 1
                assert schema.validator(kind).is_valid(changed), (kind, changed)
    assert passed > 50  # the mutations left valid documents too, so this tested something
