"""SWE-agent trajectories (`.traj`): the model's history, and what each action did.

A `.traj` holds `history` (every message the agent kept for the model), `trajectory` (one
step per action: `action`, `observation`, `state`, `execution_time`, and in SWE-agent 1.x
`query`, the messages actually sent), `info` (`exit_status`, `submission`, versions) and, in
1.x, `replay_config` (the run's configuration, with the model's name).

Each assistant message is a model call; its request is the step's `query` when the file has
one, else the history before it. Two ways a step runs an action:
- function calling: the message carries OpenAI `tool_calls`, answered by `role: tool`
  messages (`tool_call_ids`): each is a tool_call, its result the tool message's content;
- thought-action (SWE-agent 0.x, and 1.x's text parsers): SWE-agent parsed a command out of
  the answer text (`action`) and ran it in the shell. The tool is the command's first word
  (`find_file`, `edit`, `python`, `submit`), the arguments `{"command": <the action>}`, the
  result the observation message the model was sent next (or the step's observation when the
  run ended before one was sent, as after `submit`).

A `.traj` records no time: its cases lack a start time (refused, or known_unknown with
`--allow-incomplete`). SWE-agent 0.x files name no model either.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.body import trace_body
from corpus_tool.ingest.build import model_event, tool_event
from corpus_tool.ingest.chat import message, text_of
from corpus_tool.ingest.coerce import obj, opt_id, result_value
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.transcript import claim_calls
from corpus_tool.model.values import ABSENT

_EXITS = {
    "submitted": "submitted",
    "exit_cost": "step_limit",
    "exit_total_execution_time": "step_limit",
    "exit_context": "failed",
    "exit_format": "failed",
    "exit_error": "failed",
    "exit_environment_error": "failed",
    "exit_forfeit": "rejected",
}


class SweAgentImporter:
    """SWE-agent `.traj` files, thought-action and function-calling."""

    name = "swe-agent"

    def sniff(self, data: Any, path: Path) -> bool:
        if not isinstance(data, dict) or not isinstance(data.get("history"), list):
            return False
        kept = [m for m in data["history"][:3] if isinstance(m, dict)]
        return bool(kept) and all("role" in m for m in kept) and (
            path.suffix == ".traj" or "trajectory" in data or any("agent" in m for m in kept)
        )  # fmt: skip

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError("not a SWE-agent trajectory: expected {history: [...]}", path)
        config = _config(data.get("replay_config"))
        model = opt_id(obj(obj(config.get("agent")).get("model")).get("name"))
        history = [m for m in data["history"] if isinstance(m, dict)]
        steps = [s for s in data.get("trajectory") or [] if isinstance(s, dict)]
        events = _events(history, steps, model)
        info = obj(data.get("info"))
        body = trace_body(
            events,
            started_at=None,
            agent={"name": "swe-agent", "version": opt_id(info.get("swe_agent_version"))},
            user_message=_instance(history),
            terminal=_terminal(info),
            extra={
                "environment": data.get("environment"),
                "info": {k: v for k, v in info.items() if k != "submission"},
                "history_vs_trajectory": disagreements(history, steps) or None,
            },
        )
        return [Imported(self.name, body, label=path.name.split(".")[0])]


IMPORTER = SweAgentImporter()


def _config(raw: Any) -> dict[str, Any]:
    """`replay_config` is the run's config as a JSON string (1.x) or an object."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return {}
    return obj(raw)


def _events(
    history: list[dict[str, Any]], steps: list[dict[str, Any]], model: str | None
) -> list[dict[str, Any]]:
    """Model calls and tool calls in history order."""
    out: list[dict[str, Any]] = []
    asked: dict[str | None, dict[str, Any]] = {}
    renamed: dict[str, str] = {}
    step_no = 0
    for i, raw in enumerate(history):
        if raw.get("role") == "assistant" and not raw.get("is_demo"):
            step = steps[step_no] if step_no < len(steps) else {}
            step_no += 1
            event = _model_call(history[:i], raw, step, model)
            calls = claim_calls(event, asked, renamed)
            out.append(event)
            if not calls and raw.get("action"):
                out.append(_action(raw, history[i + 1 :], step))
        elif raw.get("role") == "tool":
            out.append(_tool_message(raw, asked, renamed))
    for n, step in enumerate(steps[step_no:], start=step_no + 1):
        out += _trajectory_only(step, n, history, model)
    return out


def _trajectory_only(
    step: dict[str, Any], n: int, history: list[dict[str, Any]], model: str | None
) -> list[dict[str, Any]]:
    """A step `trajectory` holds and `history` does not (SWE-agent 1.x leaves the last one,
    the final answer and its `submit`, out of the history): the model's answer (`response`)
    and the action it ran, as a thought-action step is read (the step records no tool call)."""
    action = str(step.get("action") or "").strip()
    name = action.split()[0] if action else None
    asked = [{"id": None, "name": name, "arguments": {"command": action}}] if name else []
    query = step.get("query")
    sent = query if isinstance(query, list) and query else history
    where = {"source": f"trajectory step {n} (not in history)"}
    content = step.get("response") if step.get("response") is not None else step.get("thought")
    events = [
        model_event(
            model, [message(_plain(m)) for m in sent if isinstance(m, dict)],
            text_of(content), asked, extra=where,
        )
    ]  # fmt: skip
    if name:
        result = step.get("observation", ABSENT)
        more = {**_step_extra(step), **where}
        events.append(tool_event(name, None, {"command": action}, result, extra=more))
    return events


def disagreements(history: list[dict[str, Any]], steps: list[dict[str, Any]]) -> list[Any]:
    """Steps whose action `history` and `trajectory` record differently (1-based step)."""
    answers = [m for m in history if m.get("role") == "assistant" and not m.get("is_demo")]
    return [
        {"step": n, "history": m.get("action"), "trajectory": s.get("action")}
        for n, (m, s) in enumerate(zip(answers, steps, strict=False), start=1)
        if m.get("action") is not None
        and s.get("action") is not None
        and str(m["action"]).strip() != str(s["action"]).strip()
    ]


def _model_call(
    before: list[dict[str, Any]], raw: dict[str, Any], step: dict[str, Any], model: str | None
) -> dict[str, Any]:
    """An assistant message; the request is what the step says was sent, else the history."""
    query = step.get("query")
    sent = query if isinstance(query, list) and query else before
    msg = message(_plain(raw))
    return model_event(
        model,
        [message(_plain(m)) for m in sent if isinstance(m, dict)],
        text_of(msg.get("content")),
        msg.get("tool_calls") or [],
        node=raw.get("agent"),
    )


def _plain(raw: dict[str, Any]) -> dict[str, Any]:
    """A history entry as a chat message: SWE-agent's own keys dropped, `tool_call_ids` (one
    id, SWE-agent allows one call per step) as `tool_call_id`, `tool_calls` read from text."""
    out = {k: raw[k] for k in ("role", "content", "tool_calls") if raw.get(k) is not None}
    calls = out.get("tool_calls")
    if isinstance(calls, str):
        out["tool_calls"] = result_value(calls)
    ids = raw.get("tool_call_ids")
    if isinstance(ids, list) and ids:
        out["tool_call_id"] = str(ids[0])
    return out


def _action(
    raw: dict[str, Any], after: list[dict[str, Any]], step: dict[str, Any]
) -> dict[str, Any]:
    """A command SWE-agent parsed out of the answer text, and what the model was shown next."""
    action = str(raw["action"]).strip()
    shown = next(iter(after), None)
    result: Any = ABSENT
    if shown is not None and shown.get("role") in ("user", "tool"):
        result = shown.get("content")
    elif "observation" in step:
        result = step["observation"]
    return tool_event(
        action.split()[0] if action else "noop",
        None,
        {"command": action},
        result,
        node=raw.get("agent"),
        extra=_step_extra(step),
    )


def _tool_message(
    raw: dict[str, Any], asked: dict[str | None, dict[str, Any]], renamed: dict[str, str]
) -> dict[str, Any]:
    """A tool message answers the latest call of its id with the arguments the model gave."""
    call_id = opt_id(_plain(raw).get("tool_call_id"))
    call = asked.get(renamed.get(call_id or "", call_id), {})
    return tool_event(
        str(call.get("name") or "unknown_tool"),
        call.get("id") or call_id,
        call.get("arguments") or {},
        raw.get("content"),
        node=raw.get("agent"),
    )


def _step_extra(step: dict[str, Any]) -> dict[str, Any]:
    return {k: step.get(k) for k in ("state", "execution_time")}


def _instance(history: list[dict[str, Any]]) -> str | None:
    """The task as the model was given it: the first user message that is no demonstration."""
    for raw in history:
        if raw.get("role") == "user" and not raw.get("is_demo"):
            return text_of(raw.get("content"))
    return None


def _terminal(info: dict[str, Any]) -> dict[str, Any]:
    """`exit_status` (`submitted`, `submitted (exit_cost)`, `exit_cost`, ...); the patch is the
    output."""
    status = str(info.get("exit_status") or "")
    if status.startswith("submitted"):
        kind = "submitted"
    else:
        kind = _EXITS.get(status.split(" ")[0], "unknown")
    return {"status": kind, "output": info.get("submission")}
