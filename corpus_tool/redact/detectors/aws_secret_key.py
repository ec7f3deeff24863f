"""AWS secret access keys: 40 base-64 characters after a name that says `aws` or `secret`.

A bare 40-character string is indistinguishable from request ids and digests, so (like gitleaks
and detect-secrets) the key is recognised by its label: `aws_secret_access_key=...`,
`"SecretAccessKey": "..."`. Structured values under such names are dropped by the scanner's
secret-named-key rule anyway. Only the 40 characters are replaced; the label stays.
"""

from __future__ import annotations

import re

from corpus_tool.redact.pseudonym import OPAQUE, Digest, opaque

_SECRET = re.compile(r"[A-Za-z0-9/+]{40}$")


class AwsSecretKey:
    """Labelled 40-character secrets with mixed case and digits."""

    name = "aws_secret_key"
    family = "secret"
    before = "[A-Za-z0-9]"
    left: frozenset[str] = frozenset()
    pattern = (
        r"[AaSs](?:ws|WS|ecret|ECRET)[A-Za-z0-9_.-]{0,30}[\"']?\s*[:=]\s*[\"']?"
        r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
    )

    def accept(self, text: str) -> str | None:
        """Random-looking secrets: upper, lower and digits, many distinct characters."""
        secret = self.canonical(text)
        if OPAQUE in text or len(set(secret)) < 16:
            return None
        classes = (str.isupper, str.islower, str.isdigit)
        return text if all(any(f(c) for c in secret) for f in classes) else None

    def canonical(self, text: str) -> str:
        """The 40 characters."""
        return text[-40:]

    def pseudonym(self, text: str, digest: Digest) -> str:
        """Label kept, secret opaque."""
        return text[:-40] + opaque("", self.name, digest)


DETECTOR = AwsSecretKey()
