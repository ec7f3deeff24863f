"""A waiver (waivers/<id>.yaml) as a frozen value: which checks of which case it excuses, until
when, and who answers for it.

Read once from a schema-checked document (`from_doc`); validation, `check`, `replay`, the
pytest plugin and the gate all read these attributes, never the dict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from corpus_tool.model.checks import ALL

CHECK, REDACTION = "check", "redaction"
ACTIVE, EXPIRED, INVALID = "active", "expired", "invalid"
"""A waiver's state on one day, as a results document records it."""


def parse_day(text: object) -> date | None:
    """A YYYY-MM-DD day, or None when the text is no real date (2026-02-30)."""
    try:
        return date.fromisoformat(str(text))
    except ValueError:
        return None


@dataclass(frozen=True)
class Waiver:
    """One waiver. `expires` is the last day it holds; `kind` check excuses failing checks of
    `case`, kind redaction allows one detected value (the redaction allow-list reads those)."""

    id: str
    reason: str
    owner: str
    expires: date
    kind: str = CHECK
    case: str | None = None
    checks: tuple[str, ...] = ()
    created: date | None = None
    ticket: str | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Waiver:
        """The waiver of a schema-valid document; ValueError when `expires` is no real day."""
        expires = parse_day(doc["expires"])
        if expires is None:
            raise ValueError(f"expires {doc['expires']!r} is not a date")
        return cls(
            id=str(doc["id"]),
            reason=str(doc["reason"]),
            owner=str(doc["owner"]),
            expires=expires,
            kind=str(doc.get("kind") or CHECK),
            case=str(doc["case"]) if doc.get("case") is not None else None,
            checks=tuple(str(c) for c in doc.get("checks") or ()),
            created=parse_day(doc["created"]) if doc.get("created") else None,
            ticket=str(doc["ticket"]) if doc.get("ticket") is not None else None,
        )

    def active(self, today: date) -> bool:
        """Whether it still holds today (it holds through its `expires` day)."""
        return today <= self.expires

    def names(self, check: str) -> bool:
        """Whether it excuses the check of this name (`all` excuses every check)."""
        return ALL in self.checks or check in self.checks

    def covers(self, checks: Iterable[str]) -> bool:
        """Whether it excuses every one of these checks."""
        return all(self.names(c) for c in checks)

    def shown(self) -> str:
        """`W-0007 (owner inventory-team, expires 2026-12-31)`: how reports name it."""
        return f"{self.id} (owner {self.owner}, expires {self.expires.isoformat()})"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, for results documents and reports."""
        return {
            "id": self.id,
            "case": self.case,
            "checks": list(self.checks),
            "reason": self.reason,
            "owner": self.owner,
            "expires": self.expires.isoformat(),
            "created": self.created.isoformat() if self.created else None,
            "ticket": self.ticket,
        }


@dataclass(frozen=True)
class Broken:
    """A waiver file that waives nothing because it is not valid, and why."""

    id: str
    problem: str

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "state": INVALID, "problem": self.problem}
