"""Key names that say "secret": the values under them are dropped, whatever they look like."""

from __future__ import annotations

from collections.abc import Iterable

from corpus_tool.redact.checksums import words

# Normalised names (lower case, letters and digits only) dropped when equal...
_EXACT = words(
    "password passwd pwd passphrase secret token apikey accesstoken refreshtoken idtoken "
    "authorization proxyauthorization cookie setcookie credentials privatekey clientsecret "
    "sessiontoken xapikey xauthtoken"
)
# ... or when ending so (db_password, github_token, aws_secret_access_key, set-cookie).
# `max_tokens`, `token_count` and `session_id` end otherwise and stay.
_SUFFIXES = ("password", "passwd", "secret", "token", "apikey", "accesskey", "secretkey",
             "privatekey", "cookie", "credentials")  # fmt: skip


def normalise(name: str) -> str:
    """Lower case, letters and digits only: `X-Api-Key` and `x_api_key` agree."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


def secret_names(extra: Iterable[str] = ()) -> frozenset[str]:
    """The exact names that are secret, with the corpus's `drop_keys` added."""
    return _EXACT | {normalise(name) for name in extra}


def is_secret_name(name: str, exact: frozenset[str]) -> bool:
    """True when values under a key called name are dropped.

    A trailing number does not hide a name: `access_token_2` and `password1` are secret too.
    """
    flat = normalise(name)
    core = flat.rstrip("0123456789")
    return any(n in exact or n.endswith(_SUFFIXES) for n in {flat, core} if n)
