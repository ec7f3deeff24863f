"""AWS access key ids: a four-letter type prefix and 16 base-32 characters."""

from __future__ import annotations

from corpus_tool.redact.detectors._token import OpaqueToken

_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA")

DETECTOR = OpaqueToken(
    name="aws_access_key_id",
    pattern=rf"A(?:{'|'.join(p[1:] for p in _PREFIXES)})[A-Z2-7]{{16}}(?![A-Za-z0-9])",
    before="[A-Za-z0-9]",
    prefixes=_PREFIXES,
    needs=(),
)
