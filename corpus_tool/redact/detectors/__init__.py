"""The detector registry: one module per kind of value, listed once in DETECTORS.

Adding a detector is adding a module that defines ``DETECTOR`` and a line below. Order matters
where two detectors can match at the same position: the earlier one is tried first, and when it
rejects its candidate the later ones get their turn at that position.
"""

from __future__ import annotations

from typing import Protocol

from corpus_tool.redact.pseudonym import Digest


class Detector(Protocol):
    """One kind of personal data or secret: how to find it, check it and replace it."""

    @property
    def name(self) -> str:
        """Short id, used in rules (`redaction.<name>`) and opaque pseudonyms."""
        ...

    @property
    def family(self) -> str:
        """Digest domain: detectors that share one give the same value the same digest."""
        ...

    @property
    def pattern(self) -> str:
        """A regex without capturing groups that starts with one literal or one character class.

        Starting with a single character lets the combined alternation skip this detector at a
        position with one comparison, which is most of the matcher's speed.
        """
        ...

    @property
    def before(self) -> str:
        """A character class (`[0-9A-Za-z]`) that must not precede a match; '' for none."""
        ...

    @property
    def left(self) -> frozenset[str]:
        """Characters that extend a match to the left (an email's local part before `@`)."""
        ...

    def accept(self, text: str) -> str | None:
        """The value to redact (text or a part of it), or None if text is not one."""
        ...

    def canonical(self, text: str) -> str:
        """The normal form that keys the pseudonym and the fingerprint."""
        ...

    def pseudonym(self, text: str, digest: Digest) -> str:
        """The replacement for text, built from its digest."""
        ...


from corpus_tool.redact.detectors import (  # noqa: E402 - the registry needs the Protocol first
    anthropic_key,
    authorization,
    aws_access_key_id,
    aws_secret_key,
    cn_mobile,
    cn_resident_id,
    email,
    github_token,
    iban,
    jwt,
    openai_key,
    payment_card,
    pem_private_key,
    phone_e164,
    slack_token,
    us_ssn,
)

DETECTORS: tuple[Detector, ...] = (
    pem_private_key.DETECTOR,
    jwt.DETECTOR,
    github_token.DETECTOR,
    anthropic_key.DETECTOR,
    openai_key.DETECTOR,
    slack_token.DETECTOR,
    aws_access_key_id.DETECTOR,
    aws_secret_key.DETECTOR,
    authorization.DETECTOR,
    email.DETECTOR,
    cn_resident_id.DETECTOR,
    iban.DETECTOR,
    payment_card.DETECTOR,
    cn_mobile.DETECTOR,
    phone_e164.DETECTOR,
    us_ssn.DETECTOR,
)

SECRET_KEY = "secret_key"
"""The rule name for values found under a secret-named key (the scanner's, not a module's)."""
URL_PASSWORD = "url_password"
"""The rule name for the password in a URL's userinfo, `scheme://user:password@host` (the
scanner's: it is dropped, like a secret-named query parameter)."""


def by_name(name: str) -> Detector:
    """The registered detector called name."""
    for detector in DETECTORS:
        if detector.name == name:
            return detector
    raise KeyError(name)
