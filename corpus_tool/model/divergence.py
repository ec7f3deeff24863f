"""Typed divergences: what replay asked for that the recording does not hold, and why.

The value lives in the model, below replay and everything that reads a results document: the
replay engine raises it (`corpus_tool.replay.divergence.DivergenceError`), the results
document records it (`as_dict`), and the gate and `corpus diff` read it back (`from_doc`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from corpus_tool.model.field_diff import FieldDiff
from corpus_tool.model.values import ABSENT
from corpus_tool.model.vocabulary import StrEnum


class DivergenceKind(StrEnum):
    """The divergence types (schemas/results.schema.json `divergence.kind`)."""

    MODEL_REQUEST = "ModelRequest"
    TOOL_NAME = "ToolName"
    TOOL_ARGUMENTS = "ToolArguments"
    TOOL_CALL_COUNT = "ToolCallCount"
    TOOL_RESULT = "ToolResult"
    UNUSED_RECORDING = "UnusedRecording"
    TERMINAL_STATE = "TerminalState"
    SEMANTIC_OUTPUT = "SemanticOutput"
    NETWORK = "Network"


KINDS: tuple[str, ...] = tuple(k.value for k in DivergenceKind)


def diff_text(diff: FieldDiff) -> str:
    """`$.request.temperature: recorded 0.0, replay <absent>`."""
    return f"{diff.path}: recorded {_short(diff.expected)}, replay {_short(diff.actual)}"


@dataclass(frozen=True)
class Divergence:
    """A typed mismatch between the replay and the recording; `kind` is a `DivergenceKind`."""

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

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Divergence:
        """The divergence a schema-valid results document records."""
        candidate = doc.get("candidate")
        return cls(
            kind=DivergenceKind(doc["kind"]),
            step=int(doc["step"]),
            message=str(doc["message"]),
            expected=doc.get("expected"),
            actual=doc.get("actual"),
            candidate=dict(candidate) if isinstance(candidate, Mapping) else None,
            diff=tuple(
                FieldDiff(
                    str(item["path"]), item.get("expected", ABSENT), item.get("actual", ABSENT)
                )
                for item in doc.get("diff") or ()
            ),
            stopped=bool(doc.get("stopped", True)),
        )

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


def _describe(candidate: dict[str, Any]) -> str:
    what = candidate.get("tool") or candidate.get("type", "event")
    return f"seq {candidate.get('seq')} {what}"


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)  # the absent side shows as <absent>
    return text if len(text) <= limit else text[: limit - 3] + "..."
