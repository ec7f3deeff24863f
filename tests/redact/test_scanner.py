"""The scanner: every string leaf, JSON inside strings, URL queries, secret-named keys."""

from __future__ import annotations

import json

from corpus_tool.redact import MARKER, RedactionKey, pseudonym, redact, scan

from .examples import POSITIVE

EMAIL = "alice.w@corp-mail.cn"
CARD = POSITIVE["payment_card"][0]


def test_scan_reports_path_and_detector() -> None:
    hits = scan({"events": [{"text": f"mail {EMAIL}"}]})
    assert [(h.path, h.detector, h.value) for h in hits] == [
        (("events", 0, "text"), "email", EMAIL)
    ]


def test_redact_json_inside_string(key: RedactionKey) -> None:
    body = json.dumps({"customer": {"email": EMAIL, "card": CARD}, "n": 1})
    out, replaced = redact({"body": body}, key)
    inner = json.loads(out["body"])
    assert replaced == 2
    email, card = pseudonym(EMAIL, "email", key), pseudonym(CARD, "payment_card", key)
    assert inner == {"customer": {"email": email, "card": card}, "n": 1}
    assert out["body"] == json.dumps(inner)  # same separators as the original


def test_redact_json_inside_string_untouched_when_clean(key: RedactionKey) -> None:
    body = '{"a":1,  "b": [1.50, "x"]}'
    assert redact({"body": body}, key).value == {"body": body}


def test_scan_json_path_goes_inside_the_string() -> None:
    hits = scan({"body": json.dumps({"user": {"email": EMAIL}})})
    assert hits[0].path == ("body", "(json)", "user", "email")


def test_redact_url_query_parameters(key: RedactionKey) -> None:
    url = "https://crm.test/v1/find?email=alice.w%40corp-mail.cn&ref=ORD-1&api_key=s3cr3t#top"
    out = redact(url, key).value
    email = pseudonym(EMAIL, "email", key)
    assert out == f"https://crm.test/v1/find?email={email}&ref=ORD-1&api_key={MARKER}#top"
    assert scan(url)[0].path == ("(query:email)",)


def test_redact_drops_values_under_secret_named_keys(key: RedactionKey) -> None:
    doc = {"password": "hunter2", "db_password": 1234, "Set-Cookie": {"sid": "x"},
           "x-api-key": "abc", "access_token": "t", "max_tokens": 2048, "session_id": "s-1",
           "token": None, "secret": ""}  # fmt: skip
    out, replaced = redact(doc, key)
    assert out == {**doc, "password": MARKER, "db_password": MARKER, "Set-Cookie": MARKER,
                   "x-api-key": MARKER, "access_token": MARKER}  # fmt: skip
    assert replaced == 5


def test_redact_drop_keys_from_corpus_config(key: RedactionKey) -> None:
    out = redact({"pin": "0000", "pinned": "yes"}, key, drop_keys=["PIN"]).value
    assert out == {"pin": MARKER, "pinned": "yes"}


def test_redact_long_integers_and_dict_keys(key: RedactionKey) -> None:
    out = redact({"phone": 13812345678, EMAIL: "owner", "qty": 19900}, key).value
    assert out == {"phone": int(pseudonym("13812345678", "cn_mobile", key)),
                   pseudonym(EMAIL, "email", key): "owner", "qty": 19900}  # fmt: skip


def test_redact_same_value_same_pseudonym_across_fields(key: RedactionKey) -> None:
    out = redact({"a": f"to {EMAIL}", "b": [json.dumps({"c": EMAIL.upper()})]}, key).value
    expected = pseudonym(EMAIL, "email", key)
    assert out["a"] == f"to {expected}" and json.loads(out["b"][0]) == {"c": expected}


def test_rescan_of_redacted_value_finds_nothing(key: RedactionKey) -> None:
    # Field names that are not secret-named, so the detectors (not the drop rule) do the work.
    doc = {f"field{i}": " and ".join(values) for i, values in enumerate(POSITIVE.values())}
    doc["url"] = "https://x.test/?token=abc&phone=%2B86+138-1234-5678"
    out, replaced = redact(doc, key)
    assert replaced == sum(len(v) for v in POSITIVE.values()) + 2
    assert scan(out) == []
    assert redact(out, key).value == out


def test_redact_is_deterministic(key: RedactionKey) -> None:
    doc = {"t": " ".join(v for values in POSITIVE.values() for v in values)}
    assert json.dumps(redact(doc, key).value) == json.dumps(redact(doc, key).value)


def test_scan_card_followed_by_a_year_keeps_the_year(key: RedactionKey) -> None:
    card = " ".join(CARD[i : i + 4] for i in range(0, 16, 4))
    out = redact(f"card {card} 2025", key).value
    assert out.endswith(" 2025") and card not in out


def test_scan_iban_followed_by_currency_keeps_the_currency(key: RedactionKey) -> None:
    iban = POSITIVE["iban"][1]
    out = redact(f"pay to {iban} EUR", key).value
    assert out.endswith(" EUR") and iban not in out


def test_scan_json_nested_in_json_string(key: RedactionKey) -> None:
    inner = json.dumps({"email": EMAIL})
    outer = json.dumps({"payload": inner})
    out = redact({"body": outer}, key).value
    assert EMAIL not in out["body"] and scan(out) == []


def test_scan_values_glued_to_chinese_text_and_punctuation() -> None:
    text = "手机13812345678，邮箱alice.w@corp-mail.cn。另一个 .bob@x.cn"
    assert [(h.detector, h.value) for h in scan(text)] == [
        ("cn_mobile", "13812345678"),
        ("email", "alice.w@corp-mail.cn"),
        ("email", "bob@x.cn"),
    ]


def test_secret_named_key_keeps_only_a_whole_pseudonym(key: RedactionKey) -> None:
    kept = {"authorization": "Bearer REDACTED-authorization-0123456789ab"}
    assert scan(kept) == []
    mixed = {"authorization": "REDACTED-authorization-0123456789ab hunter2"}
    assert [h.detector for h in scan(mixed)] == ["secret_key"]
    assert redact(mixed, key).value == {"authorization": MARKER}


def test_a_string_met_at_several_depths_is_redacted_as_when_met_alone(key: RedactionKey) -> None:
    """One walk remembers what it wrote for a string across depths and mapping keys (a plain
    one scans the same anywhere); a string holding JSON or a query still depends on its
    depth (JSON nested deeper than the walk parses is scanned as text)."""
    texts = [
        f"write to {EMAIL} today",
        "nothing to see in this one",
        json.dumps({"to": EMAIL}),
        f"/hook?mail={EMAIL}",
        f"https://u:{CARD}@host.example/x",
    ]
    nested: object = texts[2]
    for _ in range(5):  # deeper than the walk parses JSON in strings
        nested = json.dumps({"in": nested, "again": texts[0]})
    doc = {
        "plain": texts,
        "as_json": json.dumps({"items": texts, texts[0]: texts[1]}),
        "keys": {t: t for t in texts},
        "nested": nested,
    }
    alone = {name: redact(value, key) for name, value in doc.items()}
    together, replaced = redact(doc, key)
    assert together == {name: out for name, (out, _) in alone.items()}
    assert replaced == sum(n for _, n in alone.values())
    assert pseudonym(EMAIL, "email", key) in together["as_json"]
