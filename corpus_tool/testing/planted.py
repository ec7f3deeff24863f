"""Synthetic personal data and secrets, planted in incidents, for redaction tests and the bench.

Every value is generated here from a seeded random.Random, with check digits computed, so no
real person, card or credential is ever involved. `decoys` are values that must survive
redaction: order ids, UUIDs, digests, amounts, timestamps and numbers failing their checksum.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable
from typing import Any

from corpus_tool.redact.checksums import cn_id_check_char, iban_check_digits, luhn_digit, luhn_ok

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _mixed(rng: random.Random, alphabet: str, n: int) -> str:
    # Real keys contain upper, lower and digits; make sure a short sample does too.
    return (
        rng.choice(string.ascii_uppercase)
        + rng.choice(string.digits)
        + _chars(rng, alphabet, n - 3)
        + "a"
    )


def card_number(rng: random.Random, prefix: str = "4", length: int = 16) -> str:
    """A Luhn-valid number with a network prefix."""
    body = prefix + _chars(rng, string.digits, length - len(prefix) - 1)
    return body + luhn_digit(body)


def cn_id(rng: random.Random, region: str = "110105") -> str:
    """A Chinese resident ID with a real birth date and its MOD 11-2 check character."""
    body = f"{region}{rng.randint(1950, 2005)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
    body += _chars(rng, string.digits, 3)
    return body + cn_id_check_char(body)


def iban(rng: random.Random, country: str = "DE", bban_length: int = 18) -> str:
    """An IBAN with correct mod-97 check digits."""
    bban = _chars(rng, string.digits, bban_length)
    return country + iban_check_digits(country, bban) + bban


def cn_mobile(rng: random.Random) -> str:
    """An 11-digit mobile number in an assigned range."""
    return rng.choice(["138", "139", "150", "186", "177", "199", "135"]) + _chars(
        rng, string.digits, 8
    )


def jwt(rng: random.Random) -> str:
    """A structurally valid HS256 JWT with a random signature."""

    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    payload = {"sub": f"u{rng.randint(1000, 9999)}", "iat": 1717000000 + rng.randint(0, 10**6)}
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(payload)}.{_chars(rng, ALNUM + '-_', 43)}"


def pem(rng: random.Random) -> str:
    """A PEM block with a random (not a key) base64 body."""
    lines = [_chars(rng, B64, 64) for _ in range(4)]
    return (
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----"
    )


def _fmt_mobile(rng: random.Random) -> str:
    number = cn_mobile(rng)
    return rng.choice([number, f"+86 {number}", f"{number[:3]} {number[3:7]} {number[7:]}",
                       f"+86-{number[:3]}-{number[3:7]}-{number[7:]}"])  # fmt: skip


def _fmt_card(rng: random.Random) -> str:
    number = card_number(rng, rng.choice(["4", "51", "62", "6011"]), 16)
    sep = rng.choice(["", " ", "-"])
    return sep.join(number[i : i + 4] for i in range(0, 16, 4))


GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "email": lambda r: (
        f"{_chars(r, string.ascii_lowercase, 6)}.{r.randint(1, 999)}@mail-{r.randint(1, 99)}.cn"
    ),
    "cn_mobile": _fmt_mobile,
    "phone_e164": lambda r: f"+44 20 {r.randint(1000, 9999)} {r.randint(1000, 9999)}",
    "cn_resident_id": lambda r: cn_id(r, r.choice(["110105", "310104", "440305", "510107"])),
    "payment_card": _fmt_card,
    "iban": lambda r: iban(r, "DE", 18),
    "us_ssn": lambda r: f"{r.randint(1, 665):03d}-{r.randint(1, 99):02d}-{r.randint(1, 9999):04d}",
    "aws_access_key_id": lambda r: "AKIA" + _chars(r, string.ascii_uppercase + "234567", 16),
    "aws_secret_key": lambda r: "aws_secret_access_key=" + _mixed(r, B64, 40),
    "github_token": lambda r: "ghp_" + _mixed(r, ALNUM, 36),
    "openai_key": lambda r: "sk-proj-" + _mixed(r, ALNUM + "_-", 48),
    "anthropic_key": lambda r: "sk-ant-api03-" + _mixed(r, ALNUM + "_-", 93) + "AA",
    "slack_token": lambda r: f"xoxb-{r.randint(10**10, 10**11)}-{_mixed(r, ALNUM, 24)}",
    "jwt": jwt,
    "pem_private_key": pem,
    "authorization": lambda r: "Bearer " + _mixed(r, ALNUM, 32),
}
"""One generator per detector: a fresh valid value of that kind."""


def decoys(rng: random.Random) -> list[str]:
    """Values that look like data but are not: they must survive redaction byte for byte."""
    bad_card = card_number(rng, "4", 16)
    bad_id = cn_id(rng)
    good_iban = iban(rng)
    return [
        f"ORD-2025-{rng.randint(0, 999999):06d}",
        _fail_luhn(str(rng.randint(10**15, 10**16 - 1))),  # a 16-digit order id
        str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        _chars(rng, "0123456789abcdef", 64),  # sha256
        _chars(rng, "0123456789abcdef", 40),  # git sha1
        f"{rng.randint(1, 99999)}.{rng.randint(0, 99):02d}",
        str(rng.randint(100, 99999)),
        f"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T10:23:45.120Z",
        str(1717000000000 + rng.randint(0, 10**9)),  # epoch ms
        _fail_luhn(bad_card),  # fails Luhn
        bad_id[:-1] + ("0" if bad_id[-1] != "0" else "1"),  # fails MOD 11-2
        good_iban[:2] + f"{(int(good_iban[2:4]) + 1) % 100:02d}" + good_iban[4:],  # fails mod-97
        f"666-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}",  # never-issued SSN area
        "sk-learn-pipeline-step-standard-scaler",
        "Bearer authentication is required",
    ]


def _fail_luhn(number: str) -> str:
    return number if not luhn_ok(number) else number[:-1] + str((int(number[-1]) + 1) % 10)


def secret_parts(kind: str, value: str) -> list[str]:
    """The parts of a planted value that must not survive (its label or scheme may)."""
    if kind == "aws_secret_key":
        return [value[-40:]]
    if kind == "authorization":
        return [value.split()[-1]]
    if kind == "pem_private_key":
        return value.splitlines()[1:-1]
    if kind == "cn_mobile":
        return [value, "".join(ch for ch in value if ch.isdigit())[-11:]]
    return [value]


def planted_values(rng: random.Random) -> dict[str, str]:
    """One fresh value of every kind."""
    return {kind: make(rng) for kind, make in GENERATORS.items()}


def incident(index: int, planted: dict[str, str], kept: list[str]) -> dict[str, Any]:
    """A native incident holding every planted value in every place, and every decoy.

    Places: a plain string leaf, a JSON document serialised inside a string, a URL query
    parameter, and a secret-named key.
    """
    # Neutral field names, so the detectors find the values (secret-named keys are their own place).
    text = " | ".join(f"field{i}: {value}" for i, value in enumerate(planted.values()))
    body = json.dumps(
        {"customer": {f"field{i}": v for i, v in enumerate(planted.values())}, "ok": True}
    )
    query = "&".join(f"f{i}={_quote(value)}" for i, value in enumerate(planted.values()))
    return {
        "schemaVersion": "1.0",
        "traceId": f"t-{index:06d}",
        "startedAt": "2025-06-01T10:23:45.120Z",
        "input": {"userMessage": f"请帮我查询 {text}", "context": {"password": planted["email"]}},
        "events": [
            {"seq": 1, "type": "tool_call", "tool": "lookup_customer", "callId": "c1",
             "input": {"query": text, "api_key": planted["openai_key"]},
             "result": {"body": body, "decoys": kept}},
            {"seq": 2, "type": "tool_call", "tool": "http_get", "callId": "c2",
             "input": {"url": f"https://crm.internal.test/v1/customers?{query}&page=2"},
             "result": {"status": 200, "headers": {"authorization": planted["authorization"]}}},
            {"seq": 3, "type": "final", "status": "failed", "output": f"done: {' '.join(kept)}"},
        ],
    }  # fmt: skip


def _quote(value: str) -> str:
    from urllib.parse import quote_plus

    return quote_plus(value)


def native_incident(
    base: dict[str, Any], index: int, planted: dict[str, str], kept: list[str]
) -> dict[str, Any]:
    """A copy of a complete native incident with the planted values and decoys added.

    Places: the user message (a string leaf), a tool result holding a JSON document as a
    string, a tool input URL with a query, a secret-named context key, and the final output.
    """
    doc: dict[str, Any] = json.loads(json.dumps(base))
    values = list(planted.values())
    text = " | ".join(f"field{i}: {value}" for i, value in enumerate(values))
    body = json.dumps({"customer": {f"field{i}": v for i, v in enumerate(values)}, "ok": True})
    query = "&".join(f"f{i}={_quote(value)}" for i, value in enumerate(values))
    doc["traceId"] = f"t-planted-{index:04d}"
    doc["input"]["userMessage"] += " " + text
    doc["input"]["context"]["password"] = planted["email"]
    calls = [e for e in doc["events"] if e.get("type") == "tool_call"]
    calls[0]["result"]["body"] = body
    calls[0]["result"]["decoys"] = kept
    calls[0]["input"]["callback"] = f"https://crm.internal.test/v1/customers?{query}&page=2"
    final = next(e for e in doc["events"] if e.get("type") == "final")
    final["output"] = f"{final.get('output') or ''} {text}".strip()
    return doc
