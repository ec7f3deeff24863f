"""What changed between two runs (A, then B): aligned steps, tools, arguments, errors, side
effects, egress, terminal status and the entities of the final output.

A write is the part of a run the world sees: a tool call followed by a side effect (before the
next call, as `minimize` groups them) and the side effect itself. Other arguments of such a
call, a side effect with other data, or one only A has, are kept apart (`writes`): each is a
regression. A model request field only one side carries is a note, not a difference, by the
rule strict replay follows (corpus_tool.replay.requests; A stands for the recording).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from corpus_tool.diff import steps
from corpus_tool.diff.align import Pair, align
from corpus_tool.diff.entities import Entity, entities
from corpus_tool.io.files import canonical_json
from corpus_tool.model.events import (
    Event,
    ModelCallEvent,
    ModelRequest,
    SideEffectEvent,
    ToolCallEvent,
    error_types,
)
from corpus_tool.model.field_diff import FieldDiff, field_diff
from corpus_tool.model.json import Json, JsonObject
from corpus_tool.model.trace import Trajectory
from corpus_tool.model.values import ABSENT, Absent
from corpus_tool.replay import requests
from corpus_tool.replay.matching import normalize
from corpus_tool.replay.sequence import describe

TIERS = {
    "succeeded": 2,
    "submitted": 2,
    "needs_human": 1,
    "rejected": 1,
    "failed": 0,
    "unknown": 0,
    "step_limit": 0,
}
"""How good an ending is: done, handed on, not done. Lower on B than on A is worse."""

StepChange = Literal["changed", "dropped", "added"]
"""A step on both sides with other fields, one only in A, one only in B."""
WriteChange = Literal["arguments", "side_effect", "gone"]


@dataclass(frozen=True)
class StepDiff:
    """One aligned step that is not the same on both sides."""

    number: int  # 1-based position in the alignment
    change: StepChange
    a_seq: int | None
    b_seq: int | None
    a: str | None  # one line describing A's event
    b: str | None
    diffs: tuple[FieldDiff, ...] = ()
    wording: bool = False
    """Only text differs (a model call's messages or answer)."""

    @property
    def tool(self) -> str | None:
        """The tool this step calls (the `tool_call` lines name it)."""
        line = self.a or self.b or ""
        return line.split()[1].split("(")[0] if line.startswith("tool_call ") else None


@dataclass(frozen=True)
class Write:
    """A write B does otherwise than A: other arguments of a call followed by a side effect
    (`arguments`), a side effect with other data (`side_effect`), one only A has (`gone`)."""

    step: int
    change: WriteChange
    name: str  # the tool called, or the side effect's kind
    diffs: tuple[FieldDiff, ...] = ()

    def text(self) -> str:
        """`a write changed at step 4: create_refund arguments.amount 19900 -> 199`."""
        if self.change == "gone":
            return f"a write is gone at step {self.step}: side effect {self.name} no longer happens"
        what = self.name if self.change == "arguments" else f"side effect {self.name}"
        fields = "; ".join(_field(d) for d in self.diffs[:3])
        more = f"; {len(self.diffs) - 3} more" if len(self.diffs) > 3 else ""
        return f"a write changed at step {self.step}: {what} {fields}{more}"


def _field(item: FieldDiff) -> str:
    return f"{item.path.removeprefix('$.')} {_short(item.expected)} -> {_short(item.actual)}"


def _short(value: Json | Absent) -> str:
    return shown_value(value, limit=40)


def shown_value(value: Json | Absent, limit: int = 80) -> str:
    """A value as a report line quotes it: canonical JSON cut at `limit`, or `(absent)`."""
    if value is ABSENT:
        return "(absent)"
    text = canonical_json(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class OneSided:
    """A model request field only one side carries at a step: a note, never compared."""

    step: int
    path: str  # params.top_p, temperature, tools
    side: Literal[0, 1]  # 0: only A carries it, 1: only B
    value: Json

    def text(self, names: tuple[str, str] = ("A", "B")) -> str:
        """`step 1: request field params.top_p only in A (0.9): not compared, ...`."""
        return (
            f"step {self.step}: request field {self.path} only in {names[self.side]} "
            f"({_short(self.value)}): not compared, as strict replay does not"
        )


@dataclass(frozen=True)
class PairDiff:
    """Everything that differs between run A and run B."""

    steps: tuple[StepDiff, ...]
    tools_dropped: tuple[str, ...]
    tools_added: tuple[str, ...]
    tools_reordered: tuple[str, ...]
    tool_calls: tuple[int, int]
    errors_new: tuple[str, ...]
    errors_gone: tuple[str, ...]
    side_effects: tuple[tuple[str, int, int], ...]  # kind, count in A, count in B (differing)
    egress_added: tuple[str, ...]
    egress_gone: tuple[str, ...]
    terminal: tuple[str, str]
    output_changed: bool
    entities_lost: tuple[Entity, ...]
    writes: tuple[Write, ...] = ()
    notes: tuple[OneSided, ...] = ()  # request fields only one side carries: not compared

    @property
    def first(self) -> StepDiff | None:
        """The first step where the runs diverge."""
        return self.steps[0] if self.steps else None

    @property
    def identical(self) -> bool:
        """No step and no ending differs."""
        return not self.steps and not self.output_changed and self.terminal[0] == self.terminal[1]

    @property
    def worse_ending(self) -> bool:
        """B ended in a lower tier than A (done > handed on > not done)."""
        return TIERS.get(self.terminal[1], 0) < TIERS.get(self.terminal[0], 0)


def compare(a: Trajectory, b: Trajectory, ignored: Sequence[str] = ()) -> PairDiff:
    """The diff of two trajectories, steps aligned by LCS on (kind, tool / type / kind)."""
    pairs = align([steps.key(e) for e in a.events], [steps.key(e) for e in b.events])
    notes: list[OneSided] = []
    found = [
        (s, pair)
        for n, pair in enumerate(pairs, 1)
        if (s := _step(n, _at(a.events, pair[0]), _at(b.events, pair[1]), ignored, notes))
        is not None
    ]
    changed = tuple(s for s, _ in found)
    writes = _writes(found, a.events, b.events)
    ends = (steps.terminal_doc(a.terminal, ignored), steps.terminal_doc(b.terminal, ignored))
    tools_a, tools_b = tool_counts(a.events), tool_counts(b.events)
    errors_a, errors_b = set(error_types(a.events)), set(error_types(b.events))
    egress_a, egress_b = _egress(a.events), _egress(b.events)
    lost = _lost(a, b) if "output" in ends[0] else ()
    return PairDiff(
        steps=changed,
        tools_dropped=tuple(sorted(set(tools_a) - set(tools_b))),
        tools_added=tuple(sorted(set(tools_b) - set(tools_a))),
        tools_reordered=_reordered(changed),
        tool_calls=(sum(tools_a.values()), sum(tools_b.values())),
        errors_new=tuple(sorted(errors_b - errors_a)),
        errors_gone=tuple(sorted(errors_a - errors_b)),
        side_effects=_effects(a.events, b.events),
        egress_added=tuple(sorted(egress_b - egress_a)),
        egress_gone=tuple(sorted(egress_a - egress_b)),
        terminal=(a.terminal.status, b.terminal.status),
        output_changed=ends[0].get("output") != ends[1].get("output"),
        entities_lost=lost,
        writes=writes,
        notes=tuple(notes),
    )


def _at(events: Sequence[Event], index: int | None) -> Event | None:
    return None if index is None else events[index]


def _step(
    number: int, a: Event | None, b: Event | None, ignored: Sequence[str], notes: list[OneSided]
) -> StepDiff | None:
    if a is None or b is None:
        change: StepChange = "dropped" if b is None else "added"
        return StepDiff(number, change, _seq(a), _seq(b), _line(a), _line(b))
    left, right = steps.compared(a, ignored), steps.compared(b, ignored)
    if _attempted(a) or _attempted(b):  # no answer came: only the call itself compares
        left, right = _call_only(left), _call_only(right)
    if isinstance(a, ModelCallEvent) and isinstance(b, ModelCallEvent):
        left, right = _shared_request(number, a, left, right, notes)
    found = field_diff(left, right)
    if not found:
        return None
    wording = isinstance(a, ModelCallEvent) and all(steps.is_wording(d.path) for d in found)
    return StepDiff(number, "changed", a.seq, b.seq, _line(a), _line(b), tuple(found), wording)


def _shared_request(
    number: int,
    a: ModelCallEvent,
    left: JsonObject,
    right: JsonObject,
    notes: list[OneSided],
) -> tuple[JsonObject, JsonObject]:
    """The two model calls without the request fields only one side carries (strict replay's
    rule, A as the recording), each such field noted."""
    asked_a, asked_b = left.get("request"), right.get("request")
    if not isinstance(asked_a, dict) or not isinstance(asked_b, dict):
        return left, right
    found = requests.compare(
        ModelRequest.from_doc(asked_a),
        ModelRequest.from_doc(asked_b),
        (),
        unrecorded=a.missing,
    ).one_sided
    for field in found:
        side: Literal[0, 1] = 0 if field.carried_by == requests.RECORDING else 1
        notes.append(OneSided(number, field.path, side, field.value))
    paths = [f.path for f in found]
    return (
        {**left, "request": _without(asked_a, paths)},
        {**right, "request": _without(asked_b, paths)},
    )


def _without(request: JsonObject, paths: Sequence[str]) -> JsonObject:
    out: JsonObject = normalize(request, paths)
    if out.get("params") == {} and request.get("params") != {}:
        out = {k: v for k, v in out.items() if k != "params"}  # held only one-sided fields
    return out


def _writes(
    found: Sequence[tuple[StepDiff, Pair]], a: Sequence[Event], b: Sequence[Event]
) -> tuple[Write, ...]:
    """The changed steps that are writes the world sees."""
    writers_a, writers_b = _writers(a), _writers(b)
    out = []
    for step, (i, j) in found:
        event = a[i] if i is not None else None
        if step.change == "dropped" and isinstance(event, SideEffectEvent):
            out.append(Write(step.number, "gone", event.kind))
        elif step.change == "changed" and isinstance(event, SideEffectEvent):
            out.append(Write(step.number, "side_effect", event.kind, step.diffs))
        elif step.change == "changed" and isinstance(event, ToolCallEvent):
            args = tuple(d for d in step.diffs if d.path.startswith("$.arguments"))
            if args and (i in writers_a or (j is not None and j in writers_b)):
                out.append(Write(step.number, "arguments", event.tool, args))
    return tuple(out)


def _writers(events: Sequence[Event]) -> set[int]:
    """Indexes of the tool calls a side effect follows before the next call."""
    found: set[int] = set()
    last: int | None = None
    for i, event in enumerate(events):
        if isinstance(event, (ModelCallEvent, ToolCallEvent)):
            last = i if isinstance(event, ToolCallEvent) else None
        elif isinstance(event, SideEffectEvent) and last is not None:
            found.add(last)
    return found


def _call_only(doc: JsonObject) -> JsonObject:
    return {k: v for k, v in doc.items() if k in ("tool", "arguments")}


def _seq(event: Event | None) -> int | None:
    return None if event is None else event.seq


def _line(event: Event | None) -> str | None:
    if event is None:
        return None
    attempted = " (attempted: the replay stopped here)" if _attempted(event) else ""
    return describe(event) + attempted


def _attempted(event: Event) -> bool:
    return bool(event.extra and event.extra.get("attempted"))


def tool_counts(events: Sequence[Event]) -> Counter[str]:
    """Tool calls by tool name."""
    return Counter(e.tool for e in events if isinstance(e, ToolCallEvent))


def _egress(events: Sequence[Event]) -> set[str]:
    return {e.egress for e in events if isinstance(e, ToolCallEvent) and e.egress}


def _effects(a: Sequence[Event], b: Sequence[Event]) -> tuple[tuple[str, int, int], ...]:
    count_a = Counter(e.kind for e in a if isinstance(e, SideEffectEvent))
    count_b = Counter(e.kind for e in b if isinstance(e, SideEffectEvent))
    kinds = sorted(set(count_a) | set(count_b))
    return tuple((k, count_a[k], count_b[k]) for k in kinds if count_a[k] != count_b[k])


def _reordered(changed: Sequence[StepDiff]) -> tuple[str, ...]:
    """Tools called on both sides at steps the alignment could not match: moved."""
    dropped = {s.tool for s in changed if s.change == "dropped" and s.tool}
    added = {s.tool for s in changed if s.change == "added" and s.tool}
    return tuple(sorted(dropped & added))


def _lost(a: Trajectory, b: Trajectory) -> tuple[Entity, ...]:
    kept = {e.key for e in entities(b.terminal.output)}
    return tuple(e for e in entities(a.terminal.output) if e.key not in kept)
