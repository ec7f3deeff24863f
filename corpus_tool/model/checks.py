"""Check names and check results: the words waivers, reports and the gate share.

The names live here, below everything that makes or reads a verdict, so validating a waiver
needs no grader and no replay runtime. `corpus_tool.grade` implements one check per name (a
test holds its tables to this list).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

GRADER_CHECKS: tuple[str, ...] = (
    "errors.forbidden",
    "errors.required",
    "tools.required",
    "tools.forbidden",
    "tools.allowed",
    "tools.order",
    "tools.args",
    "tools.max_calls",
    "retries.max",
    "egress.allowed",
    "side_effects.count",
    "idempotency.reuse_key",
    "terminal.status",
    "output.contains",
    "output.not_contains",
    "output.regex",
    "output.similar",
)
"""Every check of the graders, in result order."""

DIVERGENCE_CHECK = "replay.divergence"
DETERMINISM_CHECK = "replay.determinism"
REPLAY_CHECKS: tuple[str, ...] = (DIVERGENCE_CHECK, DETERMINISM_CHECK)
"""Replay's own checks: the run diverged; `--repeat N` runs differed."""

PASSED, FAILED, NOT_REACHED = "passed", "failed", "not_reached"
OUTCOMES: tuple[str, ...] = (PASSED, FAILED, NOT_REACHED)
"""What a check can come to; `not_reached`: the run stopped before it could be decided."""

ALL = "all"
WAIVABLE: tuple[str, ...] = (ALL, *GRADER_CHECKS, *REPLAY_CHECKS)
"""What a waiver's `checks` may list."""


@dataclass(frozen=True)
class CheckResult:
    """One check's result; `name` is what waivers refer to, `details` is JSON-ready data.

    `reached` is False when the run stopped at a divergence before the check could be decided
    (docs/grading.md, "Not reached"): then `passed` is False too, yet it is no failure.
    """

    name: str
    passed: bool
    message: str
    # A plain dict so results serialize with json.dumps as they are; left out of the hash.
    details: Mapping[str, Any] = field(default_factory=dict, hash=False)
    reached: bool = True

    @property
    def outcome(self) -> str:
        """`passed`, `failed` or `not_reached`."""
        if self.passed:
            return PASSED
        return FAILED if self.reached else NOT_REACHED

    @property
    def failed(self) -> bool:
        """Whether the check counts as a failure (a check not reached does not)."""
        return self.outcome == FAILED

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, for results files."""
        return {
            "name": self.name,
            "outcome": self.outcome,
            "passed": self.passed,
            "message": self.message,
            "details": dict(self.details),
        }
