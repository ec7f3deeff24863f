"""Replaying one case: run the agent against the doubles, collect trajectory and divergence."""

from __future__ import annotations

import copy
import hashlib
import random
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from corpus_tool.events import parse_time
from corpus_tool.replay.divergence import Divergence, DivergenceError
from corpus_tool.replay.doubles import ReplaySource, Script
from corpus_tool.replay.guard import NetworkBlocked, no_network
from corpus_tool.replay.loader import Agent
from corpus_tool.replay.runtime import MAX_EVENTS, EventLimit, FrozenClock, Runtime
from corpus_tool.replay.sequence import sequence_diff
from corpus_tool.replay.stdio import agent_stdout, described
from corpus_tool.replay.values import plain

STATUSES = ("succeeded", "submitted", "rejected", "needs_human", "failed", "unknown", "step_limit")


class AgentContractError(Exception):
    """The agent broke the entrypoint contract (e.g. returned no valid terminal status)."""


@dataclass(frozen=True)
class CaseSpec:
    """What replaying a case needs: its two files, the matching mode, the ignored fields."""

    trace: Mapping[str, Any]
    expected: Mapping[str, Any]
    mode: str
    ignored: Sequence[str] = ()


@dataclass(frozen=True)
class Replay:
    """One replay: the new trajectory, how it ended, and the first divergence if any."""

    events: list[dict[str, Any]]
    terminal: dict[str, Any]
    divergence: Divergence | None
    unused: list[dict[str, Any]] = field(default_factory=list)
    sequence_diff: list[str] = field(default_factory=list)


def replay(agent: Agent, spec: CaseSpec) -> Replay:
    """Run `agent` on the case's input with the recording as its only world."""
    trace, expected = spec.trace, spec.expected
    script = Script(expected.get("stubs") or {}, expected.get("continuation") or [])
    source = ReplaySource(trace.get("events") or [], spec.mode, spec.ignored, script)
    rt = Runtime(source, FrozenClock(start_of(trace)), random.Random(seed_of(trace)))
    with no_network() as attempts:
        terminal = run_agent(agent, copy.deepcopy(dict(trace.get("input") or {})), rt)
    # a network attempt is the root cause of whatever diverged after it
    divergence = _network(attempts.targets, len(rt.events) + 1) if attempts.targets else None
    if divergence is None and rt.divergences:
        divergence = rt.divergences[0]
    unused = source.unused()
    if divergence is None and spec.mode == "strict":
        divergence = _unused(unused, len(rt.events) + 1) or _ending(spec, rt.events, terminal)
    stopped = f"{rt.divergences[0].kind} divergence" if rt.divergences else None
    diff = sequence_diff(trace, rt.events, terminal, stopped) if divergence is not None else []
    return Replay(rt.events, terminal, divergence, unused, diff)


def run_agent(agent: Agent, case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Call the entrypoint; an exception it raises is part of the trajectory (status failed)."""
    try:
        with agent_stdout():
            returned = agent(case_input, rt)
    except (DivergenceError, NetworkBlocked):
        return {"status": "unknown", "output": None}
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
            return {"status": "failed", "output": None}
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


def terminal_of(returned: Any) -> dict[str, Any]:
    """The {status, output} an entrypoint returned, checked."""
    try:
        status = returned.get("status") if isinstance(returned, Mapping) else None
        output = plain(returned.get("output")) if status in STATUSES else None
    except Exception as err:  # a mapping that raises, an output that refers to itself
        raise AgentContractError(
            "the entrypoint's return value cannot be read "
            f"({type(err).__name__}: {described(err)}); "
            "return plain data: dicts, lists, strings, numbers"
        ) from None
    if status not in STATUSES:
        raise AgentContractError(
            f"the entrypoint returned {_shown(returned)}; return "
            f"{{'status': one of {', '.join(STATUSES)}, 'output': ...}}"
        )
    return {"status": status, "output": output}


def _shown(value: Any) -> str:
    try:
        return f"{value!r:.120}"
    except Exception:  # an agent's own __repr__ may raise
        return f"a {type(value).__name__}"


def start_of(trace: Mapping[str, Any]) -> datetime:
    """The recording's start as an aware datetime in its time zone (UTC when unknown)."""
    recorded = trace.get("recorded") or {}
    start = parse_time(recorded.get("started_at")) or datetime(1970, 1, 1, tzinfo=timezone.utc)
    if start.tzinfo is None:
        start = start.replace(tzinfo=timezone.utc)
    return start.astimezone(_zone(recorded.get("timezone")))


def _zone(name: Any) -> Any:
    if not name:
        return timezone.utc
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(str(name))
    except Exception:  # unknown zone or no tz database: UTC keeps replay deterministic
        return timezone.utc


def seed_of(trace: Mapping[str, Any]) -> int:
    """The recorded seed, or one derived from the trace's identity (stable across runs)."""
    seed = (trace.get("recorded") or {}).get("seed")
    if isinstance(seed, int):
        return seed
    source = trace.get("source") or {}
    ident = f"{source.get('trace_id')}|{source.get('sha256')}|{trace.get('id')}"
    return int.from_bytes(hashlib.sha256(ident.encode()).digest()[:8], "big")


def _network(targets: list[str], step: int) -> Divergence:
    return Divergence(
        "Network",
        step,
        f"the agent tried to reach the network ({', '.join(targets[:3])}); replay never "
        "reaches real hosts: call tools through rt.tool",
        actual={"targets": targets},
    )


def _unused(unused: list[dict[str, Any]], step: int) -> Divergence | None:
    if not unused:
        return None
    names = ", ".join(f"seq {c['seq']} {c.get('tool') or 'model_call'}" for c in unused[:5])
    return Divergence(
        "UnusedRecording",
        step,
        f"{len(unused)} recorded call(s) left unused: {names} (strict mode uses every one)",
        expected=[c["seq"] for c in unused],
        candidate={k: unused[0][k] for k in ("seq", "type", "tool") if k in unused[0]},
    )


def _ending(
    spec: CaseSpec, events: list[dict[str, Any]], terminal: dict[str, Any]
) -> Divergence | None:
    """Same path as recorded, so the same ending: status, then output text."""
    if any("origin" in (e.get("extra") or {}) for e in events):
        return None  # stubs or continuation took a new path; expect.terminal judges it
    recorded = spec.trace.get("terminal") or {}
    wanted = ((spec.expected.get("expect") or {}).get("terminal") or {}).get("status")
    step = len(events) + 1
    if wanted not in (None, recorded.get("status")):
        return None  # the fix changes how the run ends; expect.terminal judges it
    if terminal["status"] != recorded.get("status"):
        return Divergence(
            "TerminalState",
            step,
            f"the run ended {terminal['status']}; the recording ended {recorded.get('status')}",
            recorded.get("status"),
            terminal["status"],
        )
    if _text(recorded.get("output")) != _text(terminal.get("output")):
        return Divergence(
            "SemanticOutput",
            step,
            "the final output differs from the recorded one on the same path",
            recorded.get("output"),
            terminal.get("output"),
        )
    return None


def _text(value: Any) -> str:
    return " ".join(str(value).split()) if value is not None else ""
