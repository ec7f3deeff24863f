"""The guard's scan of a corpus: a walk that remembers strings across files finds what a walk
that remembers nothing finds, hit for hit and in the same order; comments are looked for at
every `#` that can start one."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from corpus_tool.redact.comments import _candidates
from corpus_tool.redact.scanner import Memo, Walk
from corpus_tool.testing.planted import GENERATORS, decoys

DROP_KEYS = ["session_cookie", "X-Internal"]
KEYS = ["content", "password", "session_cookie", "x_internal", "note", "api_key", "token_count",
        "ab", "description", "url", "body"]  # fmt: skip


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.35:
        return _leaf(rng, depth)
    if roll < 0.7:
        numeric = rng.random() < 0.1  # an all-integer mapping (mixed keys cannot be dropped)
        keys = [12345678901, 7, False, 13800138000] if numeric else [*KEYS, _planted(rng)]
        return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randint(0, 5))}
    return [_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]


def _leaf(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if roll < 0.25:
        return _planted(rng)
    if roll < 0.4:
        return rng.choice(decoys(rng))
    if roll < 0.5:
        return rng.choice([123456789012, 13800138000, 5, -99999999999, True, None, 1.5, 0])
    if roll < 0.6:
        return json.dumps(_value(rng, depth + 1), ensure_ascii=False)
    if roll < 0.7:
        return f"see https://x.example/p?token={_planted(rng)}&q={_planted(rng)}#top"
    if roll < 0.8:  # repeats, as a conversation re-sent with every model call
        return rng.choice(["short", "plain text", "用户说地址写错了", f"mail {_planted(rng)}"])
    return f"{rng.choice(['note', '备注'])}: {_planted(rng)} and more"


def _planted(rng: random.Random) -> str:
    return GENERATORS[rng.choice(sorted(GENERATORS))](rng)


def _hits(walk: Walk) -> list[tuple[Any, ...]]:
    return [(h.path, h.detector, h.value) for h in walk.hits]


@pytest.mark.parametrize("seed", range(4))
def test_a_remembering_walk_finds_the_hits_of_a_plain_one(seed: int) -> None:
    rng = random.Random(seed)
    documents = [_value(rng) for _ in range(150)]
    memo = Memo()  # shared by every document, as the guard shares it across files
    found = 0
    for doc in documents + documents:  # the second round is all repeats
        for drop in ((), DROP_KEYS):
            plain = Walk(None, drop)
            plain.value(doc)
            remembering = Walk(None, drop, memo=memo if drop else Memo())
            remembering.value(doc)
            assert _hits(remembering) == _hits(plain)
            found += len(plain.hits)
    assert found > 500  # the documents do hold values to find


SPEC = re.compile(r"(?:^|[ \t])#", re.MULTILINE)  # a comment starts a line or follows a blank


@pytest.mark.parametrize("seed", range(3))
def test_comment_candidates_are_every_hash_after_a_blank_or_at_a_line_start(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        text = "".join(rng.choice("#  \t\na:'\"x\r") for _ in range(rng.randint(0, 40)))
        assert list(_candidates(text)) == [m.end() - 1 for m in SPEC.finditer(text)]
