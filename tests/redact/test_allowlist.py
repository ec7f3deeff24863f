"""The allow-list is keyed by content: fingerprints, expiry, and entries that match nothing."""

from __future__ import annotations

import datetime

from corpus_tool.redact import AllowList, RawHit, RedactionKey, fingerprint, scan

TODAY = datetime.date(2026, 1, 1)


def _waiver(fp: str, detector: str = "email", expires: str = "2026-06-30") -> dict[str, object]:
    return {
        "schema_version": 1, "id": f"W-{fp[-4:]}", "kind": "redaction", "fingerprint": fp,
        "detector": detector, "reason": "support mailbox", "owner": "ops", "expires": expires,
    }  # fmt: skip


def test_fingerprint_is_keyed_and_canonical(key: RedactionKey, other_key: RedactionKey) -> None:
    assert fingerprint("Help@Shop.cn", key, "email") == fingerprint("help@shop.cn", key, "email")
    assert fingerprint("help@shop.cn", key, "email") != fingerprint(
        "help@shop.cn", other_key, "email"
    )
    assert fingerprint("help@shop.cn", key).startswith("fp-")


def test_allow_list_allows_by_content_wherever_it_moves(key: RedactionKey) -> None:
    allow = AllowList([_waiver(fingerprint("help@shop.cn", key, "email"))], key, TODAY)
    moved = scan({"somewhere": {"else": ["write to HELP@shop.cn"]}})
    assert [allow.allows(hit) is not None for hit in moved] == [True]
    assert allow.unused() == []


def test_allow_list_needs_the_same_detector(key: RedactionKey) -> None:
    fp = fingerprint("help@shop.cn", key, "email")
    allow = AllowList([_waiver(fp, detector="secret_key")], key, TODAY)
    assert allow.allows(RawHit(("a",), "email", "help@shop.cn")) is None


def test_allow_list_reports_entries_matching_nothing(key: RedactionKey) -> None:
    stale = _waiver(fingerprint("gone@shop.cn", key, "email"))
    allow = AllowList([stale], key, TODAY)
    allow.allows(RawHit(("a",), "email", "other@shop.cn"))
    assert allow.unused() == [stale]


def test_allow_list_ignores_expired_and_check_waivers(key: RedactionKey) -> None:
    old = _waiver(fingerprint("help@shop.cn", key, "email"), expires="2025-12-31")
    check = {"kind": "check", "case": "c", "checks": ["all"]}
    allow = AllowList([old, check], key, TODAY)
    assert allow.allows(RawHit(("a",), "email", "help@shop.cn")) is None
    assert allow.expired == [old] and allow.unused() == []
