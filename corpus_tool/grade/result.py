"""The value every check produces: its stable name, the verdict, and a message for a reviewer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict; `name` is what waivers refer to, `details` is JSON-ready data."""

    name: str
    passed: bool
    message: str
    # A plain dict so results serialize with json.dumps as they are; left out of the hash.
    details: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, for results files."""
        return {
            "name": self.name,
            "passed": self.passed,
            "message": self.message,
            "details": dict(self.details),
        }


def passed(name: str, message: str, **details: Any) -> CheckResult:
    """A passing result."""
    return CheckResult(name, True, message, details)


def failed(name: str, message: str, **details: Any) -> CheckResult:
    """A failing result."""
    return CheckResult(name, False, message, details)


def verdict(name: str, problems: list[str], ok_message: str, **details: Any) -> CheckResult:
    """Fails with every problem joined when there are any, else passes with `ok_message`."""
    if problems:
        return failed(name, "; ".join(problems), **details)
    return passed(name, ok_message, **details)
