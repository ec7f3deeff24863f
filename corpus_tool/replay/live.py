"""Live-model replay: the model answers live, the tools answer from the recording.

A tool call is answered by the recorded call with the same tool name and the same canonical
arguments (less the arguments `replay.live.ignore_arguments` names for that tool); the n-th
identical call gets the n-th recorded answer, and past the last one the last again (a repeated
read). A call nothing recorded answers goes by `replay.live.unmatched`: `placeholder` (the
agent gets `PLACEHOLDER`, the call is listed as unmatched), `stub` (expected.yaml's stubs) or
`divergence` (the run stops, as strict mode does). Model requests are not compared with the
recording; with `--live-from SEQ` the recorded model calls before SEQ answer in order, and
the live model answers from there on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from corpus_tool.io.files import canonical_json
from corpus_tool.model.config import ReplaySection
from corpus_tool.model.events import Event, ModelRequest, ToolCallEvent
from corpus_tool.model.expected import Expected
from corpus_tool.replay.divergence import DivergenceError
from corpus_tool.replay.matching import nearest_tool
from corpus_tool.replay.provider import Attempt
from corpus_tool.replay.recording import Recording, Script
from corpus_tool.replay.runtime import ModelAnswer, ToolAnswer
from corpus_tool.replay.sources import ReplaySource, tool_divergence

if TYPE_CHECKING:
    from corpus_tool.replay.cases import CaseResult

RECORDED, LIVE = "recorded", "live"
MODELS = (RECORDED, LIVE)
POLICIES = ("placeholder", "stub", "divergence")
PLACEHOLDER = {"status": "unknown", "replay_unmatched": True}
UNMATCHED = "unmatched"
"""The `origin` of a tool call event the placeholder answered."""

Link = Callable[[ModelRequest, "str | None", int], ModelAnswer]
"""Asks the live model (in a worker: the grading process, over the pipe)."""


@dataclass(frozen=True)
class LiveSpec:
    """How one case is replayed live (it travels to the worker with the case)."""

    unmatched: str = "placeholder"
    ignore_arguments: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    live_from: int | None = None


def model_of(config: ReplaySection, expected: Expected, override: str | None) -> str:
    """--model, else the case's replay.model, else the corpus's, else recorded."""
    return str(override or expected.model or config.model or RECORDED)


def live_spec(config: ReplaySection, expected: Expected, live_from: int | None) -> LiveSpec:
    """The case's settings over corpus.yaml's `replay:`: the case's unmatched policy wins, and
    the arguments ignored are the union of both."""
    ignored = {k: set(v) for k, v in config.live.ignore_arguments.items()}
    for tool, names in _ignored(expected.live.get("ignore_arguments")).items():
        ignored.setdefault(tool, set()).update(names)
    unmatched = str(expected.live.get("unmatched") or config.live.unmatched)
    frozen = {tool: tuple(sorted(names)) for tool, names in sorted(ignored.items())}
    return LiveSpec(unmatched, frozen, live_from)


def _ignored(raw: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        return {}
    return {str(tool): tuple(str(n) for n in names or ()) for tool, names in raw.items()}


class LiveReplaySource(ReplaySource):
    """Answers tool calls by (name, canonical arguments), model calls through `link`."""

    def __init__(self, recording: Recording, script: Script, spec: LiveSpec, link: Link | None):
        super().__init__(recording, script)
        self._spec = spec
        self._link = link
        start = spec.live_from
        self._prefix = [m for m in recording.models if start is not None and m.seq < start]
        self._keyed: dict[str, list[tuple[str, ToolCallEvent]]] = {}  # name -> (key, call)

    def model(self, request: ModelRequest, model: str | None, step: int) -> ModelAnswer:
        fresh = next((m for m in self._prefix if not self._was_used(m)), None)
        if fresh is not None:  # before --live-from: what happened, whatever the request now
            return self._model_answer(fresh)
        if self._link is None:
            raise RuntimeError("live replay needs the grading process's model link")
        return self._link(request, model, step)

    def tool(self, name: str, arguments: dict[str, Any], step: int) -> ToolAnswer:
        if name not in self._keyed:  # each recorded call's key is worked out once per run
            recorded = self.recording.tools_named(name)
            self._keyed[name] = [(self._key(name, dict(c.arguments)), c) for c in recorded]
        same_name = [c for _, c in self._keyed[name]]
        key = self._key(name, arguments)
        matches = [c for k, c in self._keyed[name] if k == key]
        fresh = [c for c in matches if not self._was_used(c)]
        if fresh or matches:
            return self._tool_answer(fresh[0] if fresh else matches[-1], arguments, step)
        if self._spec.unmatched == "placeholder":
            return ToolAnswer(result=dict(PLACEHOLDER), origin=UNMATCHED)
        if self._spec.unmatched == "stub" and self.stubbed(name):
            return self._stub(name, arguments, step, "")
        kind = "ToolArguments" if same_name else "ToolName"
        near, _ = nearest_tool(same_name or self.recording.tools, arguments)
        error = tool_divergence(kind, near, name, arguments, step)
        why = f"; no recorded call answers it (replay.live.unmatched: {self._spec.unmatched})"
        raise DivergenceError(replace(error.divergence, message=error.divergence.message + why))

    def _key(self, name: str, arguments: dict[str, Any]) -> str:
        dropped = set(self._spec.ignore_arguments.get(name, ()))
        return canonical_json({k: v for k, v in arguments.items() if k not in dropped})


def unmatched_calls(events: Sequence[Event]) -> list[dict[str, Any]]:
    """The results document's `unmatched: [{seq, tool, arguments}]`, from a trajectory."""
    return [
        {"seq": e.seq, "tool": e.tool, "arguments": dict(e.arguments)}
        for e in events
        if isinstance(e, ToolCallEvent) and (e.extra or {}).get("origin") == UNMATCHED
    ]


@dataclass(frozen=True)
class LiveCall:
    """One model call the live model answered (or failed), as the grading process saw it."""

    attempt: int  # which --repeat run of the case (0 first)
    step: int
    model: str | None
    input_tokens: int
    output_tokens: int
    duration_ms: float
    errors: tuple[Attempt, ...] = ()
    failed: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The results document's form."""
        return {
            "attempt": self.attempt,
            "step": self.step,
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "duration_ms": self.duration_ms,
            "provider_errors": [e.as_dict() for e in self.errors],
            "failed": self.failed,
        }


@dataclass(frozen=True)
class LiveRecord:
    """A case's live calls; `passes` of `attempts` runs passed (with --repeat)."""

    calls: tuple[LiveCall, ...] = ()
    unmatched: tuple[dict[str, Any], ...] = ()
    live_from: int | None = None
    attempts: int = 1
    passes: int = 0
    runs: tuple[CaseResult, ...] = ()  # every graded attempt, in order (with --repeat)

    @property
    def provider_errors(self) -> list[Attempt]:
        """Every failed attempt, in order."""
        return [e for c in self.calls for e in c.errors]

    @property
    def failure(self) -> Attempt | None:
        """The provider error a call ended with, when one did."""
        return next((c.errors[-1] for c in self.calls if c.failed and c.errors), None)
