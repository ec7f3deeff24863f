"""Replaying one case: run the agent against the doubles, collect trajectory and divergence."""

from __future__ import annotations

import copy
import hashlib
import random
import traceback
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from corpus_tool.model.config import Mode
from corpus_tool.model.cut import CutShort
from corpus_tool.model.events import Event, ToolCallEvent
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Terminal, Trace, Trajectory
from corpus_tool.model.values import parse_time
from corpus_tool.replay.divergence import Divergence, DivergenceError
from corpus_tool.replay.faults import with_faults
from corpus_tool.replay.lenient import LenientSource
from corpus_tool.replay.live import Link, LiveReplaySource, LiveSpec
from corpus_tool.replay.matching import RecordedCall
from corpus_tool.replay.plain import plain
from corpus_tool.replay.recording import Recording, Script
from corpus_tool.replay.requests import SHARED, RequestNote
from corpus_tool.replay.runtime import MAX_EVENTS, EventLimit, FrozenClock, Runtime
from corpus_tool.replay.sequence import sequence_diff
from corpus_tool.replay.strict import StrictSource
from corpus_tool.replay.workers.loader import Agent
from corpus_tool.replay.workers.network import NetworkBlocked, no_network
from corpus_tool.replay.workers.stdio import agent_stdout, described

TERMINAL_STATUSES = (
    "succeeded",
    "submitted",
    "rejected",
    "needs_human",
    "failed",
    "unknown",
    "step_limit",
)


class AgentContractError(Exception):
    """The agent broke the entrypoint contract (e.g. returned no valid terminal status)."""


@dataclass(frozen=True)
class CaseSpec:
    """What replaying a case needs: its trace and expectations, the mode, the ignored request
    fields, and which request fields strict mode compares (`shared` or `all`)."""

    trace: Trace
    expected: Expected
    mode: str
    ignored: Sequence[str] = ()
    request_fields: str = SHARED
    live: LiveSpec | None = None
    """Set when the live model answers (`mode` is then `live`)."""


@dataclass(frozen=True)
class Replayed:
    """One replay: the new trajectory, how it ended, and the first divergence if any."""

    events: tuple[Event, ...]
    terminal: Terminal
    divergence: Divergence | None
    unused: tuple[RecordedCall, ...] = field(default_factory=tuple)
    sequence_diff: tuple[str, ...] = field(default_factory=tuple)
    notes: tuple[RequestNote, ...] = field(default_factory=tuple)
    cut: CutShort | None = None
    """Set when a divergence stopped the run: what the recording could still have answered."""

    @property
    def trajectory(self) -> Trajectory:
        """The run as graders see it (the call a divergence stopped included)."""
        return Trajectory(self.events, self.terminal, self.cut)


def source_for(
    spec: CaseSpec, link: Link | None = None
) -> StrictSource | LenientSource | LiveReplaySource:
    """The strict, lenient or live source over the case's recording and script."""
    recording, script = Recording.of(spec.trace), Script.of(spec.expected)
    if spec.live is not None:
        return LiveReplaySource(recording, script, spec.live, link)
    if spec.mode == Mode.STRICT:
        return StrictSource(recording, script, spec.ignored, spec.request_fields)
    return LenientSource(recording, script, spec.ignored)


def replay(agent: Agent, spec: CaseSpec, link: Link | None = None) -> Replayed:
    """Run `agent` on the case's input with the recording as its only world (and, live, the
    model `link` reaches)."""
    source = with_faults(source_for(spec, link), spec.trace)
    rt = Runtime(source, FrozenClock(start_of(spec.trace)), random.Random(seed_of(spec.trace)))
    with no_network() as attempts:
        terminal = run_agent(agent, copy.deepcopy(spec.trace.input.to_doc()), rt)
    # a network attempt is the root cause of whatever diverged after it
    divergence = _network(attempts.targets, len(rt.events) + 1) if attempts.targets else None
    if divergence is None and rt.divergences:
        divergence = rt.divergences[0]
    events = tuple(rt.events)
    cut = cut_short(spec, events, divergence)
    unused = tuple(source.unused())
    divergence = divergence or ended(spec, events, terminal, unused)
    stopped = f"{cut.kind} divergence" if cut is not None else None
    diff = sequence_diff(spec.trace, events, terminal, stopped) if divergence is not None else []
    return Replayed(events, terminal, divergence, unused, tuple(diff), source.notes(), cut)


def cut_short(spec: CaseSpec, events: Sequence[Event], at: Divergence | None) -> CutShort | None:
    """What the recording could still answer after the divergence that stopped the run (None
    when none stopped it).

    Strict: each recorded call answers once, so a tool has its recorded calls less the run's
    (the stopped call included); lenient answers a recorded read again; stubs answer any call.
    Computed from the case's own files and the run's events, so the grading process can work it
    out itself for a run a worker sent.
    """
    if at is None or not at.stopped:
        return None
    made = Counter(e.tool for e in events if isinstance(e, ToolCallEvent))
    recorded = spec.trace.tool_calls
    left: dict[str, int | None] = {}
    for tool, count in Counter(c.tool for c in recorded).items():
        left[tool] = max(0, count - made[tool]) if spec.mode == Mode.STRICT else None
    left.update({tool: None for tool in spec.expected.stubs})
    hosts: dict[str, set[str]] = {}
    for call in recorded:
        if call.egress:
            hosts.setdefault(call.tool, set()).add(call.egress)
    return CutShort(at.kind, at.step, left, {t: tuple(sorted(h)) for t, h in hosts.items()})


def run_agent(agent: Agent, case_input: dict[str, Any], rt: Runtime) -> Terminal:
    """Call the entrypoint; an exception it raises is part of the trajectory (status failed)."""
    try:
        with agent_stdout():
            returned = agent(case_input, rt)
    except (DivergenceError, NetworkBlocked):
        return Terminal("unknown", None)
    except EventLimit:
        pass  # reported below, whether or not the agent caught it
    except KeyboardInterrupt:  # the user's Ctrl-C stops corpus-tool too
        raise
    except BaseException as err:  # sys.exit() or any odd BaseException ends the run, not corpus
        if not rt.overflowed:  # past the limit not even the error event fits
            rt.emit(
                "error",
                error={"type": type(err).__name__, "message": described(err)},
                stack=_where(err),
            )
            return Terminal("failed", None)
    if rt.overflowed:
        raise AgentContractError(
            f"the agent recorded more than {MAX_EVENTS:,} events in one run; "
            "is it looping on rt.emit?"
        )
    return terminal_of(returned)


def _where(err: BaseException) -> str:
    """The innermost frame, file name only: no machine paths in traces or incidents."""
    frames = traceback.extract_tb(err.__traceback__)
    if not frames:
        return f"{type(err).__name__}: {described(err)}"
    last = frames[-1]
    where = f"{Path(last.filename).name}:{last.lineno} in {last.name}"
    return f"{where}: {type(err).__name__}: {described(err)}"


def terminal_of(returned: Any) -> Terminal:
    """The {status, output} an entrypoint returned, checked."""
    try:
        status = returned.get("status") if isinstance(returned, Mapping) else None
        output = plain(returned.get("output")) if status in TERMINAL_STATUSES else None
    except Exception as err:  # a mapping that raises, an output that refers to itself
        raise AgentContractError(
            "the entrypoint's return value cannot be read "
            f"({type(err).__name__}: {described(err)}); "
            "return plain data: dicts, lists, strings, numbers"
        ) from None
    if status not in TERMINAL_STATUSES:
        raise AgentContractError(
            f"the entrypoint returned {_shown(returned)}; return "
            f"{{'status': one of {', '.join(TERMINAL_STATUSES)}, 'output': ...}}"
        )
    return Terminal(status, output)


def _shown(value: Any) -> str:
    try:
        return f"{value!r:.120}"
    except Exception:  # an agent's own __repr__ may raise
        return f"a {type(value).__name__}"


def start_of(trace: Trace) -> datetime:
    """The recording's start as an aware datetime in its time zone (UTC when unknown)."""
    recorded = trace.recorded
    start = parse_time(recorded.started_at) or datetime(1970, 1, 1, tzinfo=timezone.utc)
    if start.tzinfo is None:
        start = start.replace(tzinfo=timezone.utc)
    return start.astimezone(_zone(recorded.timezone))


def _zone(name: Any) -> Any:
    if not name:
        return timezone.utc
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(str(name))
    except Exception:  # unknown zone or no tz database: UTC keeps replay deterministic
        return timezone.utc


def seed_of(trace: Trace) -> int:
    """The recorded seed, or one derived from the trace's identity (stable across runs)."""
    seed = trace.recorded.seed
    if isinstance(seed, int):
        return seed
    source = trace.source
    ident = f"{source.trace_id}|{source.sha256}|{trace.id}"
    return int.from_bytes(hashlib.sha256(ident.encode()).digest()[:8], "big")


def _network(targets: list[str], step: int) -> Divergence:
    return Divergence(
        "Network",
        step,
        f"the agent tried to reach the network ({', '.join(targets[:3])}); replay never "
        "reaches real hosts: call tools through rt.tool",
        actual={"targets": targets},
    )


def ended(
    spec: CaseSpec, events: Sequence[Event], terminal: Terminal, unused: Sequence[RecordedCall]
) -> Divergence | None:
    """What strict replay finds once a run that did not diverge is over: recorded calls left
    unused, then another ending than the recording's on the same path (unless expect.terminal
    asks for another status). `corpus regrade` asks it again of a stored run: the ending a case
    expects is its expected.yaml's of now."""
    if spec.mode != Mode.STRICT:
        return None
    return _unused(unused, len(events) + 1) or _ending(spec, events, terminal)


def _unused(unused: Sequence[RecordedCall], step: int) -> Divergence | None:
    if not unused:
        return None
    names = ", ".join(f"seq {c.seq} {_call_name(c)}" for c in unused[:5])
    first = unused[0]
    candidate: dict[str, Any] = {"seq": first.seq, "type": first.type}
    if isinstance(first, ToolCallEvent):
        candidate["tool"] = first.tool
    return Divergence(
        "UnusedRecording",
        step,
        f"the run ended with {len(unused)} recorded call(s) left unused: {names} "
        "(strict mode uses every one)",
        expected=[c.seq for c in unused],
        candidate=candidate,
        stopped=False,
    )


def _call_name(call: RecordedCall) -> str:
    return call.tool if isinstance(call, ToolCallEvent) else "model_call"


def _ending(spec: CaseSpec, events: Sequence[Event], terminal: Terminal) -> Divergence | None:
    return ending(spec.trace.terminal, spec.expected, events, terminal)


def ending(
    recorded: Terminal, expected: Expected, events: Sequence[Event], terminal: Terminal
) -> Divergence | None:
    """Same path as recorded, so the same ending: status, then output text (`corpus regrade`
    asks it of a stored run with the recorded ending the document kept)."""
    if any("origin" in (e.extra or {}) for e in events):
        return None  # stubs or continuation took a new path; expect.terminal judges it
    expected_end = expected.expect.terminal
    wanted = expected_end.status if expected_end is not None else None
    step = len(events) + 1
    if wanted not in (None, recorded.status):
        return None  # the fix changes how the run ends; expect.terminal judges it
    if terminal.status != recorded.status:
        return Divergence(
            "TerminalState",
            step,
            f"the run finished with status {terminal.status}; the recording ended "
            f"{recorded.status} on the same path (if the fix changes the ending on purpose, "
            f"set expect.terminal.status: {terminal.status})",
            recorded.status,
            terminal.status,
            stopped=False,
        )
    if _text(recorded.output) != _text(terminal.output):
        return Divergence(
            "SemanticOutput",
            step,
            "the run finished with another output than the recorded one on the same path",
            recorded.output,
            terminal.output,
            stopped=False,
        )
    return None


def _text(value: Any) -> str:
    return " ".join(str(value).split()) if value is not None else ""
