"""PEM private key blocks (RSA, EC, OpenSSH, PKCS#8, encrypted, PGP), with or without END line."""

from __future__ import annotations

import re

from corpus_tool.redact.pseudonym import OPAQUE, Digest, opaque

_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_END = re.compile(r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----$")


class PemPrivateKey:
    """A whole key block; a block cut before its END line is redacted to the end of the text."""

    name = "pem_private_key"
    family = "secret"
    before = ""
    left: frozenset[str] = frozenset()
    pattern = (
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[^-]|-(?!----END))*"
        r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?"
    )

    def accept(self, text: str) -> str | None:
        """Any block whose body is not already a pseudonym."""
        return None if OPAQUE in text else text

    def canonical(self, text: str) -> str:
        """The body without whitespace, so re-wrapped copies of one key agree."""
        return "".join(text.split())

    def pseudonym(self, text: str, digest: Digest) -> str:
        """BEGIN and END lines kept, body replaced."""
        begin = _BEGIN.match(text)
        end = _END.search(text)
        head = begin.group() if begin else ""
        return f"{head}\n{opaque('', self.name, digest)}\n{end.group() if end else ''}".rstrip()


DETECTOR = PemPrivateKey()
