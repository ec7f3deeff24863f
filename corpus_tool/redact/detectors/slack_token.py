"""Slack tokens (xoxb-, xoxp-, xapp- ...) and incoming-webhook URLs."""

from __future__ import annotations

from corpus_tool.redact.detectors._token import OpaqueToken

DETECTOR = OpaqueToken(
    name="slack_token",
    pattern=r"[xh](?:ox[abposre]-[A-Za-z0-9-]{10,}|app-[0-9]-[A-Za-z0-9-]{10,}"
    r"|ttps://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_+-]{20,})",
    before="[A-Za-z0-9_-]",
    prefixes=(
        "https://hooks.slack.com/services/",
        "https://hooks.slack.com/workflows/",
        *(f"xox{c}-" for c in "abposre"),
        "xapp-",
    ),
)
