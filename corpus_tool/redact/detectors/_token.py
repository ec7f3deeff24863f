"""Opaque secret tokens: a regex, the prefixes to keep, and character-class requirements."""

from __future__ import annotations

from dataclasses import dataclass

from corpus_tool.redact.pseudonym import OPAQUE, Digest, opaque


@dataclass(frozen=True)
class OpaqueToken:
    """A secret with no shape worth keeping beyond its prefix (API keys, tokens, JWTs)."""

    name: str
    pattern: str
    before: str
    prefixes: tuple[str, ...] = ()
    needs: tuple[str, ...] = ("digit",)
    family: str = "secret"
    left: frozenset[str] = frozenset()

    def accept(self, text: str) -> str | None:
        """The token, unless it is a pseudonym, lacks its prefix or the classes real ones have."""
        if OPAQUE in text:
            return None
        prefix = self._prefix(text)
        if self.prefixes and not prefix:
            return None
        body = text[len(prefix) :]
        return text if all(_CLASSES[need](body) for need in self.needs) else None

    def canonical(self, text: str) -> str:
        """Tokens are case-sensitive: the text itself."""
        return text

    def pseudonym(self, text: str, digest: Digest) -> str:
        """Prefix kept, the rest opaque."""
        return opaque(self._prefix(text), self.name, digest)

    def _prefix(self, text: str) -> str:
        return next((p for p in self.prefixes if text.startswith(p)), "")


_CLASSES = {
    "digit": lambda s: any(c.isdigit() for c in s),
    "upper": lambda s: any(c.isupper() for c in s),
    "lower": lambda s: any(c.islower() for c in s),
}
