"""Typed divergences: what replay asked for that the recording does not hold, and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from corpus_tool.model.field_diff import FieldDiff

KINDS = (
    "ModelRequest",
    "ToolName",
    "ToolArguments",
    "ToolCallCount",
    "ToolResult",
    "UnusedRecording",
    "TerminalState",
    "SemanticOutput",
    "Network",
)


def diff_text(diff: FieldDiff) -> str:
    """`$.request.temperature: recorded 0.0, replay <absent>`."""
    return f"{diff.path}: recorded {_short(diff.expected)}, replay {_short(diff.actual)}"


@dataclass(frozen=True)
class Divergence:
    """A typed mismatch between the replay and the recording."""

    kind: str
    step: int
    message: str
    expected: Any = None
    actual: Any = None
    candidate: dict[str, Any] | None = None
    diff: tuple[FieldDiff, ...] = field(default_factory=tuple)
    stopped: bool = True
    """The run stopped here (raised inside the agent); False for what is found at the end:
    recorded calls left unused, another ending."""

    def as_dict(self) -> dict[str, Any]:
        """The stable JSON form used in results documents."""
        return {
            "kind": self.kind,
            "step": self.step,
            "message": self.message,
            "expected": self.expected,
            "actual": self.actual,
            "candidate": self.candidate,
            "diff": [d.data() for d in self.diff],
            "stopped": self.stopped,
        }

    def lines(self) -> list[str]:
        """Readable lines: the headline, the nearest recorded candidate, the field diff."""
        out = [f"{self.kind} at step {self.step}: {self.message}"]
        if self.candidate is not None:
            out.append(f"nearest recorded candidate: {_describe(self.candidate)}")
        out.extend(f"  {diff_text(d)}" for d in self.diff)
        return out


class DivergenceError(BaseException):
    """Raised inside agent code at a divergence.

    A BaseException, so an agent's broad `except Exception` cannot swallow it and carry on
    with an answer the recording never gave; the runtime also keeps the divergence, so even a
    swallowed one fails the case.
    """

    def __init__(self, divergence: Divergence):
        super().__init__("\n".join(divergence.lines()))
        self.divergence = divergence


def _describe(candidate: dict[str, Any]) -> str:
    what = candidate.get("tool") or candidate.get("type", "event")
    return f"seq {candidate.get('seq')} {what}"


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)  # the absent side shows as <absent>
    return text if len(text) <= limit else text[: limit - 3] + "..."
