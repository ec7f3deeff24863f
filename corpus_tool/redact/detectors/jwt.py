"""JSON Web Tokens: three base64url parts whose header decodes to a JSON object."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from corpus_tool.redact.detectors._token import OpaqueToken


@dataclass(frozen=True)
class Jwt(OpaqueToken):
    """OpaqueToken whose header must decode to a JSON object with `alg` or `typ`."""

    def accept(self, text: str) -> str | None:
        """Accept tokens with a decodable header."""
        header = text.split(".", 1)[0]
        try:
            decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
        except ValueError:
            return None
        if not isinstance(decoded, dict) or not ({"alg", "typ"} & decoded.keys()):
            return None
        return super().accept(text)


DETECTOR = Jwt(
    name="jwt",
    pattern=r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
    before="[A-Za-z0-9_-]",
    needs=(),
)
