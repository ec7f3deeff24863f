"""Email addresses; those in the reserved `.invalid` TLD (pseudonyms) are not flagged."""

from __future__ import annotations

import string

from corpus_tool.redact.pseudonym import RESERVED_EMAIL_DOMAIN, Digest


class Email:
    """user@host.tld, replaced by an address in `redacted.invalid`."""

    name = "email"
    family = "email"
    before = ""
    left = frozenset(string.ascii_letters + string.digits + "._%+-")
    # Anchored at "@": starting at every letter of every word would cost most of the scan.
    pattern = (
        r"@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}"
        r"(?![A-Za-z0-9-])"
    )

    def accept(self, text: str) -> str | None:
        """The address (without leading punctuation), unless in the reserved `.invalid` TLD."""
        address = text.lstrip(".-+%_")
        local = address.split("@", 1)[0]
        if not 0 < len(local) <= 64 or address.lower().endswith(".invalid"):
            return None
        return address

    def canonical(self, text: str) -> str:
        """Addresses compare case-insensitively."""
        return text.lower()

    def pseudonym(self, text: str, digest: Digest) -> str:
        """user-<12 hex>@redacted.invalid."""
        return f"user-{digest.hex()}@{RESERVED_EMAIL_DOMAIN}"


DETECTOR = Email()
