"""Anthropic API keys (sk-ant-api03-..., sk-ant-admin01-...)."""

from __future__ import annotations

from corpus_tool.redact.detectors._token import OpaqueToken

DETECTOR = OpaqueToken(
    name="anthropic_key",
    pattern=r"sk-ant-[A-Za-z0-9_-]{20,}",
    before="[A-Za-z0-9_-]",
    prefixes=("sk-ant-api03-", "sk-ant-admin01-", "sk-ant-"),
)
