"""GitHub tokens: classic (ghp_, gho_, ghs_, ghu_, ghr_) and fine-grained (github_pat_)."""

from __future__ import annotations

from corpus_tool.redact.detectors._token import OpaqueToken

DETECTOR = OpaqueToken(
    name="github_token",
    pattern=r"g(?:h[pousr]_[A-Za-z0-9]{36,251}|ithub_pat_[A-Za-z0-9_]{40,251})(?![A-Za-z0-9_])",
    before="[A-Za-z0-9_]",
    prefixes=("github_pat_", "ghp_", "gho_", "ghs_", "ghu_", "ghr_"),
)
