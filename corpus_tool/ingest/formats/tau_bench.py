"""tau-bench and tau2-bench results: one file, many runs (one per task and trial).

tau-bench: a list of `{task_id, trial, reward, info, traj}` where `traj` is the OpenAI chat
transcript; tool errors are results starting `Error:`. Results record neither the model nor a
time: the model comes from the file name tau-bench's `run.py` writes
(`{strategy}-{model}-{temperature}_range_...`, or `{model}-{env}.json` as in its
historical_trajectories), the start time from the domain policy's "The current time is ...".
tau2-bench: `{info, tasks, simulations: [{task_id, trial, start_time, messages, reward_info}]}`;
a tool message with `error: true` is an error.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest import transcript
from corpus_tool.ingest.body import last_answer, trace_body
from corpus_tool.ingest.build import error_event
from corpus_tool.ingest.chat import message, text_of
from corpus_tool.ingest.coerce import error, obj
from corpus_tool.ingest.imported import Imported

_RUN_NAME = re.compile(
    r"^(?P<strategy>tool-calling|act|react|few-shot)-(?P<model>.+?)-(?P<temp>\d+(?:\.\d+)?)_range_"
)
_HISTORICAL = re.compile(r"^(?P<model>.+)-(?P<env>airline|retail)$")
_NOW = re.compile(
    r"current time is (\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)\s*([A-Z]{2,4})?"
)
_ZONES = {"EST": "-05:00", "EDT": "-04:00", "UTC": "+00:00", "GMT": "+00:00", "PST": "-08:00"}
_ENDINGS = {
    "###STOP###": "succeeded",
    "###TRANSFER###": "needs_human",
    "###OUT-OF-SCOPE###": "rejected",
}


def policy_time(text: Any) -> str | None:
    """The simulated 'current time' a domain policy states, as ISO 8601."""
    found = _NOW.search(text) if isinstance(text, str) else None
    if found is None:
        return None
    day, clock, zone = found.groups()
    clock = clock if clock.count(":") == 2 else clock + ":00"
    return f"{day}T{clock}{_ZONES.get(zone or '', '')}"


class TauBenchImporter:
    """sierra-research/tau-bench results."""

    name = "tau-bench"

    def sniff(self, data: Any, path: Path) -> bool:
        return (
            isinstance(data, list)
            and bool(data)
            and all(isinstance(r, dict) and "task_id" in r and "traj" in r for r in data[:3])
        )

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError("not tau-bench results: expected a list of {task_id, traj}", path)
        strategy, model = _from_name(path)
        return [self._run(r, strategy, model) for r in data]

    def _run(self, run: dict[str, Any], strategy: str | None, model: str | None) -> Imported:
        traj = [m for m in run.get("traj") or [] if isinstance(m, dict)]
        info = obj(run.get("info"))
        events = transcript.events(traj, lambda _m: model)
        if info.get("error"):
            events.append(error_event(_crash(info), stack=info.get("traceback")))
        system = next((m.get("content") for m in traj if m.get("role") == "system"), None)
        task_id, trial = str(run.get("task_id")), run.get("trial", 0)
        body = trace_body(
            events,
            started_at=policy_time(system),
            agent={"name": f"tau-bench-{strategy or 'agent'}"},
            user_message=_first_user(traj),
            terminal=_terminal(traj, events, bool(info.get("error"))),
            extra={"reward": run.get("reward"), "info": info, "trial": trial},
        )
        label = f"task-{task_id}-trial-{trial}"
        return Imported(self.name, body, label=label, task_id=task_id)


def _from_name(path: Path) -> tuple[str | None, str | None]:
    stem = path.name.split(".json")[0]
    found = _RUN_NAME.match(stem)
    if found:
        return found["strategy"], found["model"]
    historical = _HISTORICAL.match(stem.split(".")[0])
    return (None, historical["model"]) if historical else (None, None)


def _crash(info: dict[str, Any]) -> dict[str, str]:
    """The exception that ended the run: the traceback's last line names its type."""
    last = str(info.get("traceback") or "").strip().splitlines()[-1:] or [""]
    parsed = error(last[0])
    if parsed["type"] == "Error":
        return error(str(info["error"]))
    return parsed


def _first_user(traj: list[dict[str, Any]]) -> str | None:
    return next((text_of(m.get("content")) for m in traj if m.get("role") == "user"), None)


def _terminal(
    traj: list[dict[str, Any]], events: list[dict[str, Any]], crashed: bool
) -> dict[str, Any]:
    last_user: dict[str, Any] = next((m for m in reversed(traj) if m.get("role") == "user"), {})
    text = str(last_user.get("content") or "")
    status = next((s for mark, s in _ENDINGS.items() if mark in text), "unknown")
    status = "needs_human" if _handed_over(events) else status
    return {"status": "failed" if crashed else status, "output": last_answer(events)}


TRANSFER_TOOL = "transfer_to_human_agents"


def _handed_over(events: list[dict[str, Any]]) -> bool:
    """The one rule of both benchmarks: a run in which the agent's `transfer_to_human_agents`
    call succeeded ("Transfer successful") ended with a human taking over, whatever the
    simulated user said or the orchestrator recorded after it."""
    return any(
        e["type"] == "tool_call" and e["tool"] == TRANSFER_TOOL and "error" not in e for e in events
    )


class Tau2BenchImporter:
    """sierra-research/tau2-bench Results (and a single SimulationRun)."""

    name = "tau2-bench"

    def sniff(self, data: Any, path: Path) -> bool:
        if not isinstance(data, dict):
            return False
        return isinstance(data.get("simulations"), list) or isinstance(
            data.get("simulation_run"), dict
        )

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError("not tau2-bench results: expected {simulations: [...]}", path)
        info = obj(data.get("info"))
        sims = data.get("simulations") or [data["simulation_run"]]
        return [self._run(s, info) for s in sims if isinstance(s, dict)]

    def _run(self, sim: dict[str, Any], info: dict[str, Any]) -> Imported:
        agent_info = obj(info.get("agent_info"))
        model = agent_info.get("llm")
        messages = [m for m in sim.get("messages") or [] if isinstance(m, dict)]
        greeting, rest = _split_greeting(messages)
        events = transcript.events(
            rest, lambda m: _model(m, model), _tau2_error, _tau2_extra, opening=greeting
        )
        env = obj(info.get("environment_info"))
        task_id, trial = str(sim.get("task_id")), sim.get("trial", 0)
        kept = (
            "reward_info",
            "termination_reason",
            "agent_cost",
            "user_cost",
            "duration",
            "seed",
            "id",
        )
        body = trace_body(
            events,
            started_at=sim.get("start_time")
            or sim.get("timestamp")
            or policy_time(env.get("policy")),
            agent={"name": f"tau2-{agent_info.get('implementation') or 'agent'}"},
            user_message=_first_user(rest),
            terminal=_tau2_terminal(sim, events),
            extra={**{k: sim.get(k) for k in kept}, "domain": env.get("domain_name")},
            conversation=greeting,
        )
        return Imported(
            self.name,
            body,
            trace_id=sim.get("id"),
            label=f"task-{task_id}-trial-{trial}",
            task_id=task_id,
        )


def _split_greeting(messages: list[dict[str, Any]]) -> tuple[list[Any], list[dict[str, Any]]]:
    """tau2's orchestrator opens with a fixed assistant greeting: conversation, not a model call."""
    if messages and messages[0].get("role") == "assistant" and not messages[0].get("tool_calls"):
        return [message(messages[0])], messages[1:]
    return [], messages


def _model(msg: dict[str, Any], default: Any) -> str | None:
    raw = obj(msg.get("raw_data"))
    return str(raw.get("model") or default) if (raw.get("model") or default) else None


def _tau2_error(msg: dict[str, Any]) -> dict[str, str] | None:
    if msg.get("error") is True:
        text = str(msg.get("content") or "")
        return error(text.removeprefix("Error:").strip(), "ToolError")
    return transcript.error_prefix(msg)


def _tau2_extra(msg: dict[str, Any]) -> dict[str, Any]:
    keep = ("turn_idx", "cost", "requestor")
    return {k: msg[k] for k in keep if msg.get(k) is not None}


def _tau2_terminal(sim: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    reason = str(sim.get("termination_reason") or "")
    status = {
        "user_stop": "succeeded",
        "agent_stop": "succeeded",
        "max_steps": "step_limit",
        "too_many_errors": "failed",
        "agent_error": "failed",
        "user_error": "failed",
        "transfer": "needs_human",
    }.get(reason.split(".")[-1].lower(), "unknown")
    if _handed_over(events) and status != "failed":
        status = "needs_human"
    return {"status": status, "output": last_answer(events)}


TAU_BENCH = TauBenchImporter()
TAU2_BENCH = Tau2BenchImporter()
