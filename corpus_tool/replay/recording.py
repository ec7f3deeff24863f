"""What a replay answers from: the recorded calls, indexed once, and expected.yaml's script."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from corpus_tool.model.events import ModelCallEvent, ToolCallEvent
from corpus_tool.model.expected import Expected, ScriptedAnswer, Stub
from corpus_tool.model.trace import Trace
from corpus_tool.replay.matching import RecordedCall


@dataclass(frozen=True)
class Recording:
    """A trace's model and tool calls in recorded order; nothing here changes during a run."""

    calls: tuple[RecordedCall, ...]
    models: tuple[ModelCallEvent, ...] = field(init=False)
    tools: tuple[ToolCallEvent, ...] = field(init=False)

    def __post_init__(self) -> None:
        models = tuple(c for c in self.calls if isinstance(c, ModelCallEvent))
        tools = tuple(c for c in self.calls if isinstance(c, ToolCallEvent))
        object.__setattr__(self, "models", models)
        object.__setattr__(self, "tools", tools)

    @classmethod
    def of(cls, trace: Trace) -> Recording:
        """The calls of a trace."""
        return cls(tuple(e for e in trace.events if isinstance(e, (ModelCallEvent, ToolCallEvent))))

    def tools_named(self, name: str) -> tuple[ToolCallEvent, ...]:
        """The recorded calls of one tool."""
        return tuple(c for c in self.tools if c.tool == name)


@dataclass(frozen=True)
class Script:
    """What expected.yaml adds past the recording: tool stubs and scripted model answers."""

    stubs: Mapping[str, Stub] = field(default_factory=dict)
    continuation: tuple[ScriptedAnswer, ...] = ()

    @classmethod
    def of(cls, expected: Expected) -> Script:
        """A case's stubs and continuation."""
        return cls(expected.stubs, expected.continuation)
