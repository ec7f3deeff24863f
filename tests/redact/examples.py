"""Positive and negative examples per detector; checksummed ones computed, all synthetic."""

from __future__ import annotations

import random

from corpus_tool.testing.planted import GENERATORS, card_number, cn_id, iban, jwt, pem

_rng = random.Random(20250601)


def _many(kind: str, n: int = 5) -> list[str]:
    return [GENERATORS[kind](_rng) for _ in range(n)]


def _bad_check(number: str) -> str:
    return number[:-1] + ("0" if number[-1] not in "0X" else "1")


_visa = card_number(_rng, "4", 16)
_amex = card_number(_rng, "37", 15)
_id = cn_id(_rng, "440305")
_gb = iban(_rng, "GB", 18)

POSITIVE: dict[str, list[str]] = {
    "email": ["alice.w@corp-mail.cn", "Bob+tag@sub.example-shop.co.uk", *_many("email")],
    "cn_mobile": [
        "13812345678", "+86 13912345678", "+86-150-1234-5678", "0086 18612345678",
        "8617712345678", "199 1234 5678", "135-1234-5678",
    ],
    "phone_e164": ["+44 20 7946 0958", "+14155550123", "+49 (30) 901820", "+81-3-1234-5678"],
    "cn_resident_id": [_id, _id[:-1] + _id[-1].lower(), *_many("cn_resident_id")],
    "payment_card": [
        _visa, " ".join(_visa[i : i + 4] for i in range(0, 16, 4)),
        "-".join(_visa[i : i + 4] for i in range(0, 16, 4)),
        f"{_amex[:4]} {_amex[4:10]} {_amex[10:]}", card_number(_rng, "62", 19),
        card_number(_rng, "2221", 16), card_number(_rng, "6011", 16),
    ],
    "iban": [_gb, " ".join(_gb[i : i + 4] for i in range(0, 22, 4)), iban(_rng, "FR", 23),
             iban(_rng, "NO", 11)],
    "us_ssn": ["123-45-6789", "001-01-0001", "665-99-9999"],
    "aws_access_key_id": [*_many("aws_access_key_id"), "ASIA" + "ABCDEFGHIJKLMNOP"],
    "aws_secret_key": [
        *_many("aws_secret_key"), "SecretAccessKey: 'Ab3dEfGh1jKlMn0pQrStUvWxYz0123456789ABcd",
    ],
    "github_token": [*_many("github_token"), "gho_" + "aB3" * 12, "github_pat_" + "Ab1_" * 20],
    "openai_key": [*_many("openai_key"), "sk-" + "aB3dE" * 10],
    "anthropic_key": [*_many("anthropic_key"), "sk-ant-admin01-" + "x1Y_" * 10],
    "slack_token": [*_many("slack_token"), "xapp-1-A0123BCDE-1234567890-abcdef0123",
                    "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/aBcDeFgHiJkLmNoPqRsT1234"],
    "jwt": [jwt(_rng), jwt(_rng)],
    "pem_private_key": [
        pem(_rng), pem(_rng).replace("RSA ", ""), pem(_rng).replace("RSA", "OPENSSH"),
    ],
    "authorization": ["Bearer abc123def456ghi789", "Authorization: Basic dXNlcjpwYXNzd29yZDE=",
                      "authorization=Token 9f8e7d6c5b4a39281706", "BEARER Zx9Yw8Vu7Ts6Rq5Po4"],
}  # fmt: skip

NEGATIVE: dict[str, list[str]] = {
    "email": ["user-0123456789ab@redacted.invalid", "not an email @ all", "a@b", "@corp.cn",
              "x@localhost"],
    "cn_mobile": ["12012345678", "1381234567", "138123456789", "14012345678", "10012345678",
                  "+86 10012345678", "138 12345 678"],
    "phone_e164": ["+999 1234 5678", "+0 123 4567 890", "+44 12", "+86 100 1234 5678",
                   "44 20 7946 0958"],
    "cn_resident_id": [_bad_check(_id), "990105" + _id[6:], _id[:10] + "1332" + _id[14:],
                       "000000" + _id[6:]],
    "payment_card": [_bad_check(_visa), "1234567890123456", "0000" + _visa[4:],
                     "2025-06-01 10:23:45", "550e8400-e29b-41d4-a716-446655440000", "19900",
                     "4111 1111 1111"],
    "iban": [_bad_check(_gb), "XX" + _gb[2:], "ZZ12345678901234567890", "DE12"],
    "us_ssn": ["000-12-3456", "666-12-3456", "900-12-3456", "123-00-4567", "123-45-0000",
               "ORD-123-45-6789", "2025-06-01"],
    "aws_access_key_id": ["AKIA123", "AKIAREDACTED-aws_access_key_id-0123456789ab",
                          "XKIA" + "ABCDEFGHIJKLMNOP"],
    "aws_secret_key": ["aws_region=eu-west-1", "secret=" + "a" * 40,
                       "aws_secret_access_key=" + "0123456789abcdef" * 2 + "01234567",
                       "aws_secret_access_key=REDACTED-aws_secret_key-0123456789ab"],
    "github_token": ["ghp_short", "ghp_REDACTED-github_token-0123456789ab", "ghx_" + "a1" * 18],
    "openai_key": ["sk-learn-pipeline-step-standard-scaler", "task-1234567890abcdefghij",
                   "sk-proj-REDACTED-openai_key-0123456789ab"],
    "anthropic_key": ["sk-ant-short", "sk-ant-api03-REDACTED-anthropic_key-0123456789ab"],
    "slack_token": ["xoxb-", "xoxb-REDACTED-slack_token-0123456789ab", "xoxz-1234567890-abc"],
    "jwt": ["eyJhbGciOi.eyJzdWIiOi", "eyJub3Rqc29uIjoxfQ.eyJzdWIiOiIxIn0.sig",
            "eyJ" + "A" * 20 + ".eyJ" + "B" * 20 + ".c"],
    "pem_private_key": ["-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
                        "-----BEGIN PRIVATE KEY-----\nREDACTED-pem_private_key-0123456789ab\n"
                        "-----END PRIVATE KEY-----", "-----BEGIN CERTIFICATE-----"],
    "authorization": ["Bearer authentication is required", "Authorization: required",
                      "Bearer REDACTED-authorization-0123456789ab", "Basic idea"],
}  # fmt: skip
