"""OpenAI API keys: legacy sk-..., project sk-proj-..., service-account and admin keys.

Mixed case and a digit are required so names like `sk-learn-pipeline-step` stay readable.
"""

from __future__ import annotations

from corpus_tool.redact.detectors._token import OpaqueToken

DETECTOR = OpaqueToken(
    name="openai_key",
    pattern=r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    before="[A-Za-z0-9_-]",
    prefixes=("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"),
    needs=("digit", "upper", "lower"),
)
