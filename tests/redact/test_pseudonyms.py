"""Pseudonyms: stable under one key, different under another, typed, shaped, never re-flagged."""

from __future__ import annotations

import re

import pytest

from corpus_tool.redact import RedactionKey, pseudonym, redact, scan
from corpus_tool.redact.checksums import cn_id_check_char, digits_of, iban_ok, luhn_ok

from .examples import POSITIVE

_ALL = [(kind, value) for kind, values in POSITIVE.items() for value in values[:2]]


@pytest.mark.parametrize(("kind", "value"), _ALL)
def test_pseudonym_stable_under_one_key(kind: str, value: str, key: RedactionKey) -> None:
    assert pseudonym(value, kind, key) == pseudonym(value, kind, key)


@pytest.mark.parametrize(("kind", "value"), _ALL)
def test_pseudonym_differs_under_another_key(
    kind: str, value: str, key: RedactionKey, other_key: RedactionKey
) -> None:
    assert pseudonym(value, kind, key) != pseudonym(value, kind, other_key)


@pytest.mark.parametrize(("kind", "value"), _ALL)
def test_pseudonym_is_not_flagged_again(kind: str, value: str, key: RedactionKey) -> None:
    replaced = pseudonym(value, kind, key)
    assert replaced != value
    assert scan(f"note: {replaced} (end)") == []


def test_pseudonym_email_stays_an_address_in_reserved_domain(key: RedactionKey) -> None:
    assert re.fullmatch(
        r"user-[0-9a-f]{12}@redacted\.invalid", pseudonym("A.B@corp.cn", "email", key)
    )


def test_pseudonym_email_ignores_case(key: RedactionKey) -> None:
    assert pseudonym("A.B@Corp.CN", "email", key) == pseudonym("a.b@corp.cn", "email", key)


def test_pseudonym_phone_keeps_format_and_links_formats(key: RedactionKey) -> None:
    plain = pseudonym("13812345678", "cn_mobile", key)
    spaced = pseudonym("+86 138-1234-5678", "cn_mobile", key)
    assert re.fullmatch(r"100\d{8}", plain)
    assert re.fullmatch(r"\+86 100-\d{4}-\d{4}", spaced)
    assert digits_of(spaced)[2:] == plain


def test_pseudonym_card_passes_luhn_with_separators(key: RedactionKey) -> None:
    card = POSITIVE["payment_card"][1]
    replaced = pseudonym(card, "payment_card", key)
    assert replaced.startswith("0000 ") and len(replaced) == len(card)
    assert luhn_ok(digits_of(replaced))


def test_pseudonym_cn_id_keeps_date_and_check_character(key: RedactionKey) -> None:
    replaced = pseudonym(POSITIVE["cn_resident_id"][0], "cn_resident_id", key)
    assert replaced.startswith("000000") and len(replaced) == 18
    assert replaced[6:14].isdigit() and 1940 <= int(replaced[6:10]) <= 2010
    assert replaced[17] == cn_id_check_char(replaced[:17])


def test_pseudonym_iban_passes_mod97_in_original_grouping(key: RedactionKey) -> None:
    replaced = pseudonym(POSITIVE["iban"][1], "iban", key)
    assert replaced.startswith("XX") and iban_ok(replaced.replace(" ", ""))
    assert [len(g) for g in replaced.split()] == [len(g) for g in POSITIVE["iban"][1].split()]


@pytest.mark.parametrize(
    ("kind", "value", "prefix"),
    [("github_token", POSITIVE["github_token"][0], "ghp_REDACTED-github_token-"),
     ("openai_key", POSITIVE["openai_key"][0], "sk-proj-REDACTED-openai_key-"),
     ("anthropic_key", POSITIVE["anthropic_key"][0], "sk-ant-api03-REDACTED-anthropic_key-"),
     ("slack_token", POSITIVE["slack_token"][0], "xoxb-REDACTED-slack_token-"),
     ("authorization", "Bearer abc123def456ghi789", "Bearer REDACTED-authorization-")],
)  # fmt: skip
def test_pseudonym_secret_keeps_prefix_and_kind(
    kind: str, value: str, prefix: str, key: RedactionKey
) -> None:
    assert re.fullmatch(re.escape(prefix) + "[0-9a-f]{12}", pseudonym(value, kind, key))


def test_pseudonym_same_token_bare_and_in_header_share_digest(key: RedactionKey) -> None:
    token = POSITIVE["github_token"][0]
    bare = redact(token, key).value
    header = redact(f"Authorization: Bearer {token}", key).value
    assert bare[-12:] == header[-12:]


@pytest.mark.parametrize(
    "value",
    [" ".join(POSITIVE["payment_card"][4][i : i + 4] for i in range(0, 19, 4)),
     POSITIVE["payment_card"][1], POSITIVE["payment_card"][3], POSITIVE["iban"][1],
     " ".join(POSITIVE["iban"][2][i : i + 4] for i in range(0, 27, 4)),
     "+49 30 1234 5678 901", "+86 138 1234 5678"],
)  # fmt: skip
def test_grouped_pseudonyms_never_rescan_under_many_keys(value: str) -> None:
    kind = scan(value)[0].detector
    for i in range(400):
        key = RedactionKey(f"crk1_sweep-{i:04d}-{'k' * 32}".encode(), "sweep")
        replaced = pseudonym(value, kind, key)
        assert scan(f"x {replaced} y") == [], (i, replaced)
