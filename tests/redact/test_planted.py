"""Generated incidents with every kind planted in every place: all gone, decoys kept."""

from __future__ import annotations

import json
import random
from urllib.parse import quote_plus

import pytest

from corpus_tool.io.files import dump_yaml
from corpus_tool.redact import RedactionKey, pseudonym, redact, scan
from corpus_tool.testing.planted import decoys, incident, planted_values, secret_parts

N = 12


@pytest.fixture(scope="module")
def corpus(key: RedactionKey) -> list[tuple[dict[str, str], list[str], str]]:
    rng = random.Random(42)
    shared = planted_values(rng)
    out = []
    for i in range(N):
        planted = planted_values(rng) if i % 2 else dict(shared)
        kept = decoys(rng)
        redacted = redact(incident(i, planted, kept), key).value
        text = json.dumps(redacted, ensure_ascii=False) + "\n" + dump_yaml(redacted)
        out.append((planted, kept, text))
    return out


def test_planted_values_all_gone(corpus: list[tuple[dict[str, str], list[str], str]]) -> None:
    leaks = [
        (kind, part)
        for planted, _, text in corpus
        for kind, value in planted.items()
        for part in secret_parts(kind, value)
        if part in text or quote_plus(part) in text or json.dumps(part)[1:-1] in text
    ]
    assert leaks == []


def test_planted_decoys_all_kept(corpus: list[tuple[dict[str, str], list[str], str]]) -> None:
    lost = [d for _, kept, text in corpus for d in kept if d not in text]
    assert lost == []


def test_planted_same_value_same_pseudonym_across_incidents(
    corpus: list[tuple[dict[str, str], list[str], str]], key: RedactionKey
) -> None:
    shared = corpus[0][0]
    for kind in ("email", "cn_resident_id", "iban", "github_token", "us_ssn"):
        expected = pseudonym(shared[kind], kind, key)
        holding = [i for i, (_, _, text) in enumerate(corpus) if expected in text]
        assert holding == list(range(0, N, 2)), kind


def test_planted_redacted_incidents_rescan_clean(key: RedactionKey) -> None:
    rng = random.Random(7)
    redacted = redact(incident(0, planted_values(rng), decoys(rng)), key).value
    assert scan(redacted) == []


def test_planted_every_kind_is_found_in_every_place() -> None:
    rng = random.Random(9)
    planted = planted_values(rng)
    hits = scan(incident(0, planted, decoys(rng)))
    places = {(h.detector, _place(h.path)) for h in hits}
    for kind in planted:
        assert {(kind, "leaf"), (kind, "json"), (kind, "query")} <= places, kind
    assert {("secret_key", "leaf")} <= places


def _place(path: tuple[str | int, ...]) -> str:
    if "(json)" in path:
        return "json"
    if any(str(p).startswith("(query:") for p in path):
        return "query"
    return "leaf"
