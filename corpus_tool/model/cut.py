"""A run cut short by a divergence, and what the recording could still have answered after it.

Replay writes it, graders read it: a check of a cut-short run is decided only when every
completion of the run that the recording allows gives it the same verdict; otherwise it is
*not reached* (docs/grading.md, "Not reached"). What the agent would have done after the
divergence is unknown (its model would have been asked something else), so a completion may
append any calls, events and ending; what is known is how often replay could still answer each
tool, and which hosts the recorded calls of a tool reached.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class CutShort:
    """Where the run stopped, and the calls of each tool the recording could still answer.

    `calls_left[tool]` is a count, or None for no bound (a stub answers any number of calls,
    and lenient mode answers a recorded read again); a tool missing from it has none left.
    """

    kind: str
    step: int
    calls_left: Mapping[str, int | None] = field(default_factory=dict)
    hosts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def left(self, tool: str) -> int | None:
        """How many more calls of `tool` could be answered; None: no bound."""
        return self.calls_left.get(tool, 0)

    def may_call(self, tool: str, times: int = 1) -> bool:
        """Whether a completion could call `tool` `times` more times."""
        left = self.left(tool)
        return left is None or left >= times

    def callable_tools(self) -> tuple[str, ...]:
        """Tools a completion could still call, sorted."""
        return tuple(sorted(t for t in self.calls_left if self.may_call(t)))

    def describe(self) -> str:
        """`the ToolArguments divergence at step 4`."""
        return f"the {self.kind} divergence at step {self.step}"


DIVERGED = "diverged"
"""The `extra` key of a replayed call that a divergence stopped (it was attempted, never
answered); its value is the divergence kind."""
