"""Shrinking a trace to the fewest units of events that still reproduce its trigger.

ddmin removes whole units (a call with what it asked for and the events it caused); then each
event the agent caused (a state change, a side effect, a handoff) that is left is tried alone,
once, in recorded order, and stays only when the trigger needs it (a 1-minimal pass over those
events): padding that followed a needed call, or came before the first call, goes too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from corpus_tool.errors import AgentFailed, UsageError
from corpus_tool.minimize.ddmin import Exhausted, ddmin
from corpus_tool.minimize.oracle import Goal, Oracle, Symptoms, reproduces
from corpus_tool.minimize.units import Unit, units
from corpus_tool.model.events import HandoffEvent, SideEffectEvent, StateChangeEvent
from corpus_tool.model.trace import Minimized, Trace
from corpus_tool.validate import completeness

DEFAULT_MAX_REPLAYS = 500
CAUSED = (StateChangeEvent, SideEffectEvent, HandoffEvent)
"""Events the agent caused that the single-event pass tries to remove one by one."""
Progress = Callable[[int, int], None]
"""Called after each replay with (replays so far, events in the smallest candidate so far)."""


@dataclass(frozen=True)
class Shrunk:
    """The result: the trace to write (the input itself when nothing could go), and the facts
    the before/after summary shows."""

    before: Trace
    trace: Trace
    trigger: Goal
    whole: Symptoms
    removed: tuple[int, ...]
    replays: int
    units_before: int
    units_after: int
    exhausted: bool

    @property
    def changed(self) -> bool:
        """Whether any event was removed (else nothing is written)."""
        return bool(self.removed)


class _Counted:
    """The oracle, counting replays against the budget and reporting progress."""

    def __init__(self, oracle: Oracle, budget: int, progress: Progress):
        self._oracle, self._budget, self._progress = oracle, budget, progress
        self.replays = 0
        self.smallest = 0

    def __call__(self, trace: Trace) -> Symptoms:
        if self.replays >= self._budget:
            raise Exhausted()
        self.replays += 1
        outcome = self._oracle(trace)
        self._progress(self.replays, self.smallest or len(trace.events))
        return outcome


def shrink(
    trace: Trace,
    oracle: Oracle,
    pick_trigger: Callable[[Symptoms], Goal | None],
    max_replays: int = DEFAULT_MAX_REPLAYS,
    progress: Progress = lambda replays, events: None,
) -> Shrunk:
    """ddmin over the trace's units with replay as the oracle; deterministic.

    `pick_trigger` chooses the trigger once the whole trace has been replayed (the default
    trigger may be the first check that run fails).
    """
    counted = _Counted(oracle, max(1, max_replays), progress)
    whole = counted(trace)
    trigger = pick_trigger(whole)
    _check_reproduces(trace, trigger, whole)
    assert trigger is not None
    groups = units(trace.events)
    allowed = _problems(trace)
    counted.smallest = len(trace.events)

    def reproduced(candidate: Trace) -> bool:
        if not _problems(candidate) <= allowed:
            return False  # never replay a trace the completeness rules refuse
        if not reproduces(trigger, whole, counted(candidate)):
            return False
        counted.smallest = min(counted.smallest, len(candidate.events))
        return True

    reduction = ddmin(len(groups), lambda kept: reproduced(keep(trace, groups, kept)))
    smallest, exhausted = keep(trace, groups, reduction.kept), reduction.exhausted
    if not exhausted:
        smallest, exhausted = _single_events(smallest, reproduced)
    removed = _removed(trace, smallest)
    return Shrunk(
        trace,
        noted(smallest, trigger, removed, counted.replays) if removed else trace,
        trigger,
        whole,
        removed,
        counted.replays,
        len(groups),
        len(reduction.kept),
        exhausted,
    )


def _single_events(trace: Trace, reproduced: Callable[[Trace], bool]) -> tuple[Trace, bool]:
    """The trace without each caused event the trigger does not need, tried one at a time;
    True as well when the budget ran out on the way."""
    for seq in [e.seq for e in trace.events if isinstance(e, CAUSED)]:
        candidate = dataclasses.replace(
            trace, events=tuple(e for e in trace.events if e.seq != seq)
        )
        try:
            if reproduced(candidate):
                trace = candidate
        except Exhausted:
            return trace, True
    return trace, False


def _check_reproduces(trace: Trace, trigger: Goal | None, whole: Symptoms) -> None:
    if whole.broken is not None:  # before the trigger: a run that never ended fails no check
        raise AgentFailed(
            f"case {trace.id}: the agent cannot replay the whole case "
            f"({_one_line(whole.broken)}); nothing to minimize, nothing written: fix the agent, "
            "or give it more time (--timeout)"
        )
    if trigger is None:
        raise UsageError(
            f"case {trace.id}: its replay fails no check and expected.yaml names no trigger "
            f"({whole.summary()}); name what to keep with --until"
        )
    if not trigger.holds(whole):
        raise UsageError(
            f"case {trace.id}: the trigger ({trigger.describe()}) does not reproduce when the "
            f"whole case is replayed ({whole.summary()}); nothing to minimize: name what to "
            "keep with --until, or try --mode"
        )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def keep(trace: Trace, groups: list[Unit], kept: tuple[int, ...]) -> Trace:
    """The trace with the events of the kept units only, in recorded order."""
    indexes = sorted(i for k in kept for i in groups[k])
    return dataclasses.replace(trace, events=tuple(trace.events[i] for i in indexes))


def noted(trace: Trace, trigger: Goal, removed: tuple[int, ...], replays: int) -> Trace:
    """The trace with its `source.minimized` note; an earlier minimization's note is added to."""
    before = trace.source.minimized
    if before is not None:
        removed = tuple(sorted({*before.removed, *removed}))
        replays += before.replays
    note = Minimized(trigger.describe(), removed, replays)
    return dataclasses.replace(trace, source=dataclasses.replace(trace.source, minimized=note))


def _removed(before: Trace, after: Trace) -> tuple[int, ...]:
    kept = {e.seq for e in after.events}
    return tuple(e.seq for e in before.events if e.seq not in kept)


def _problems(trace: Trace) -> frozenset[tuple[str, str]]:
    return frozenset((p.rule, p.message) for p in completeness.problems(trace.to_doc()))
