"""Credentials in `Authorization: ...` headers and after `Bearer`/`Basic` schemes.

Only the credential is replaced; the header name and scheme stay. A credential must contain a
digit, so prose such as "Bearer authentication required" stays readable.
"""

from __future__ import annotations

import re

from corpus_tool.redact.pseudonym import MARKER, Digest, opaque

_CREDENTIAL = re.compile(r"[A-Za-z0-9._~+/-]+=*$")


class Authorization:
    """Header credentials; shares the `secret` digest with bare tokens."""

    name = "authorization"
    family = "secret"
    before = "[A-Za-z]"
    left: frozenset[str] = frozenset()
    pattern = (
        r"[AaBb](?:uthorization[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?:[Bb]earer|BEARER|[Bb]asic|[Tt]oken|[Dd]igest)\s+)?"
        r"|(?:earer|EARER|asic)\s+)"
        r"[A-Za-z0-9._~+/-]{8,}=*"
    )

    def accept(self, text: str) -> str | None:
        """The header with its credential, unless the credential is redacted or a plain word."""
        credential = self.canonical(text)
        if credential.startswith(MARKER) or not any(c.isdigit() for c in credential):
            return None
        return text

    def canonical(self, text: str) -> str:
        """The credential alone."""
        found = _CREDENTIAL.search(text)
        return found.group() if found else text

    def pseudonym(self, text: str, digest: Digest) -> str:
        """Header name and scheme kept, credential opaque."""
        credential = self.canonical(text)
        return text[: len(text) - len(credential)] + opaque("", self.name, digest)


DETECTOR = Authorization()
