"""The reader of the writer's own layout (io/yaml_read) gives the loader's values, or steps aside.

The reference is the loader without it (libyaml's composer, the fast build and PyYAML's
constructor behind it), run on the same text: the value with every leaf's type, the spans of
the scalars holding `#` (which the comment check relies on), or the error and its line. The
texts: every YAML file in the repository, a generated corpus, documents the writer makes of
random values (hypothesis), and hostile or damaged ones, which must come out the same.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.corpus import Shape, trace_doc, write_corpus
from corpus_tool.errors import InputError
from corpus_tool.io import files, yaml_read
from tests.conftest import ROOT
from tests.io.test_fast_paths import TRICKY, _typed

WHERE = Path("doc.yaml")


def _outcome(text: str | bytes) -> Any:
    try:
        value, spans = files.parse_yaml_spans(text, WHERE)
    except InputError as err:
        return ("error", err.message, err.line)
    return ("value", _typed(value), spans)


def _reference(text: str | bytes, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The loader's answer with the layout reader switched off."""
    with monkeypatch.context() as patch:
        patch.setattr(files, "_read_written", lambda text: None)
        return _outcome(text)


def _read(text: str) -> bool:
    """Whether the layout reader itself answered (rather than stepping aside)."""
    try:
        yaml_read.read(text, files._scalars())
    except yaml_read.OffLayout:
        return False
    return True


def _agree(text: str | bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome(text) == _reference(text, monkeypatch), text


def test_every_yaml_file_of_the_repository_reads_as_libyaml_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "*.yaml", "*.yml"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    assert len(listed) > 20
    for name in listed:
        _agree((ROOT / name).read_bytes(), monkeypatch)


def test_a_generated_corpus_reads_as_libyaml_reads_it_and_its_traces_take_the_layout_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_corpus(tmp_path, Shape(12, large=0, broken=3, waivers=2))
    taken = 0
    for path in sorted(corpus.rglob("*.yaml")):
        raw = path.read_bytes()
        _agree(raw, monkeypatch)
        taken += path.name == "trace.yaml" and _read(raw.decode())
    assert taken >= 10  # the writer's traces are read without libyaml


WORDS = ["refund", "退款", "yes", "no", "on", "1", "0x1f", "1:20", "1e3", "2026-01-01", "~", "null",
         "a#b", "#", "x:", ":", "-", "- x", "'", '"', "\\", "it's", "{}", "[]", "|", ">", "&a",
         "*a", "!!str", "%", "@", "`", "..." , "---", "?", "é", "😀", "\u2028", "\x85", "\ufeff",
         "\t", "\r", "\x00", "\x7f", "true", "False", ".inf", "-.5", "+1", "<<", "="]  # fmt: skip


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 5 or roll < 0.5:
        words = " ".join(rng.choices(WORDS[:20], k=rng.randint(1, 40)))
        return rng.choice([rng.choice(WORDS), words, rng.randint(-(10**12), 10**12),
                           rng.random(), True, None, ""])  # fmt: skip
    if roll < 0.75:
        return {rng.choice(WORDS[:30]) + str(i): _random_value(rng, depth + 1) for i in range(4)}
    return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def test_most_written_documents_take_the_layout_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(27)
    taken = 0
    for _ in range(200):
        text = files.dump_yaml({"doc": _random_value(rng), "id": "x"})
        _agree(text, monkeypatch)
        taken += _read(text)
    assert taken >= 150  # so the comparison above is of the reader, not of libyaml twice


HOSTILE = [
    *TRICKY,
    "a: 1\nb: 2\na: 3\n",  # a duplicate: the loader's error and its line
    "a:\n  b: 1\n  c:\n    d: 1\n    d: 2\n",
    "- a: 1\n  a: 2\n",
    "'a': 1\na: 2\n",
    "1: x\n'1': y\n",  # an int and a string: two keys
    "a: 1 # a comment\n",
    "# first\na: 1\n",
    "a: 1\n\nb: 2\n",  # a blank line between values
    "a: 1\n  \nb: 2\n",
    "a:\n    b: 1\n    c: 2\n",  # four spaces
    "a:\n  - 1\n  - 2\n",  # an indented sequence
    "a:\n- 1\nb: 2\n",
    "a:\n- 1\n  - 2\n",
    "a: 1\n  b: 2\n",
    "a: 1\n- 2\n",
    "- 1\na: 2\n",
    "a:\nb: 1\n",  # an empty value
    "a:\n",
    "a: x\n  y\n  z\n",  # a plain scalar over lines
    "a: x\n  - y\n",
    "- x\n  - y\n",
    "a: x\n  y: z\n",
    "a: x\n  #y\n",
    "a: x\n  y #z\n",
    "a: x #\n",
    "a:  two spaces\n",
    "a: trailing \n",
    "a\tb: 1\n",
    "a:\t1\n",
    "a: 1\r\nb: 2\r\n",
    "a: 1\rb: 2\n",
    "a: x\x85y\n",
    "a: x\u2028y\n",
    "a: \x7f\n",
    "a: 1",  # no final line break
    "---\na: 1\n",
    "a: 1\n...\n",
    "a: 1\n---\nb: 2\n",
    "...: 1\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: 'open\n",
    "a: 'one\n  two'\n",
    "a: 'one\n\n  two'\n",
    "a: 'one\n  \n  two'\n",
    "a: 'x' y\n",
    "a: 'it''s'\n",
    "a: 'ends with''\n  more'\n",
    "a: 'one\ntwo'\n",  # a continuation not indented
    'a: "esc \\t \\n \\x41 \\u00e9 \\U0001F600 \\\\ \\" \\/ \\N \\_ \\L \\P \\0 \\e"\n',
    'a: "bad \\q"\n',
    'a: "surrogate \\ud800"\n',
    'a: "big \\U00110000"\n',
    'a: "one\n  two"\n',
    'a: "one \\\n  two"\n',
    'a: "one\\\n  \\ two"\n',
    'a: "one\\\\\n  two"\n',
    'a: "one\n\n  two"\n',
    'a: "x" y\n',
    'a: "open\n',
    '"a\\tb": 1\n"a\\u0009b": 2\n',
    "a: |\n  one\n  two\n",
    "a: |-\n  one\n\n  two\n\n\nb: 1\n",
    "a: |+\n  one\n\n\nb: 1\n",
    "a: |+\n  one\n\n",
    "a: |2\n    indented\n  less\n",
    "a: |2-\n   one\n  two\n",
    "a: |-2\n   one\n",
    "a: |\n\n  after a blank line\n",
    "a: |\n  \n  one\n",
    "a: |\n  one\n \n  two\n",
    "a: |\n   more\n  less\n",
    "a: | # comment\n  one\n",
    "a: |\n  # kept\n  text\nb: 1\n",
    "- |\n  item\n- |-\n  two\n",
    "a: |\nb: 1\n",
    "a: >\n  folded\n  text\n",
    "a: {}\nb: []\nc: {x: 1}\nd: [1]\n",
    "a: {} # c\n",
    "- {}\n- []\n- - - x\n",
    "- - a\n  - b\n- c\n",
    "- a: 1\n  b:\n  - x\n  c: 2\n",
    "- a: 1\n- b: 2\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "<<: 1\n",
    "=: 1\n",
    "? a\n: b\n",
    "a:b: c\n",
    "a:: 1\nx: a:\n",  # a key's text that no value may be (the key read first)
    "x: a\n  b\ny: a b\nz: a b:\n",
    "a:b\n",
    "http://x: 1\n",
    "a: http://x.example/a#frag\n",
    "a#b: c#d\n",
    "a: -1\nb: -x\nc: ?x\nd: :x\n",
    "a: - x\n",
    "a: ? x\n",
    "a: : x\n",
    "- -\n",
    "-\n",
    "- \n",
    "k" * 1100 + ": 1\n",
    "'" + "k" * 1100 + "': 1\n",
    "a: " + "9" * 5000 + "\n",
    "- " * 151 + "x\n",
    "a:\n" + "".join("  " * d + f"k{d}:\n" for d in range(1, 205)) + "  " * 205 + "x: 1\n",
    "a: 1\n\ufeff",
    "\ufeffa: 1\n",
    "a: yes\nb: 0o17\nc: 1_000\nd: 1:20\ne: .NaN\nf: 2026-01-01\ng: ~\nh: Off\n",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_and_odd_documents_read_as_libyaml_reads_them(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _agree(text, monkeypatch)
    _agree(text.encode("utf-8", "surrogatepass"), monkeypatch)


def test_a_duplicate_key_is_refused_at_its_line_as_before() -> None:
    text = files.dump_yaml({"events": [{"seq": 1, "type": "x"}], "z": 1}) + "z: 2\n"
    with pytest.raises(InputError) as caught:
        files.parse_yaml(text, WHERE)
    assert "duplicate key 'z'" in caught.value.message
    assert caught.value.line == text.count("\n")


DAMAGE = [" ", "#", ": ", "- ", "\t", "'", '"', "\\", "|", ">", "&a ", "*a", "!!str ", "{", "[",
          "\n", "\r", "---\n", "...\n", "? ", "  ", "\n\n", "x", "\\u00", "''", "#x "]  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_damaged_written_documents_read_as_libyaml_reads_them(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        text = files.dump_yaml({"doc": _random_value(rng), "id": "x"})
        lines = text.split("\n")
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            roll = rng.random()
            if roll < 0.5:
                at = rng.randint(0, len(lines[i]))
                lines[i] = lines[i][:at] + rng.choice(DAMAGE) + lines[i][at:]
            elif roll < 0.7 and lines[i]:
                at = rng.randrange(len(lines[i]))
                lines[i] = lines[i][:at] + lines[i][at + 1 :]
            else:
                lines.insert(i, lines[rng.randrange(len(lines))])  # a line twice: a duplicate
        _agree("\n".join(lines), monkeypatch)


def test_written_traces_read_to_the_loaders_values_without_libyaml() -> None:
    rng = random.Random(5)
    for i in range(6):
        text = files.dump_yaml(trace_doc(f"c{i}", rng, large=i == 0))
        value, _ = yaml_read.read(text, files._scalars())
        assert _typed(value) == _typed(yaml.load(text, Loader=files.Loader))
