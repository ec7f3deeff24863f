"""Closed vocabularies as string enums: a member is its word (`Verdict.FAILED == "failed"`),
prints as it (`f"{v}"` is `failed`), and is written to JSON as it, so files and output stay
the same words while mypy knows the closed set.

`enum.StrEnum` exists from Python 3.11; this package supports 3.10, so the same behaviour is
spelled out here for it.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import NoReturn

if sys.version_info >= (3, 11):
    from enum import StrEnum as StrEnum
else:  # pragma: no cover - exercised on 3.10 only

    class StrEnum(str, Enum):
        """A string enum whose members format and print as their value."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return format(str(self.value), spec)


def unreachable(value: NoReturn) -> NoReturn:
    """The end of a `match` over a closed vocabulary: mypy flags the call when a member is
    left unhandled (the value's type is then that member, not `NoReturn`)."""
    raise AssertionError(f"unhandled value {value!r}")
