"""mini-swe-agent trajectories (`*.traj.json`): the messages the agent kept, and how it ended.

A trajectory is `{info, messages, trajectory_format, instance_id?}`: `info` holds
`exit_status` (`Submitted`, `LimitsExceeded`, or the name of the exception that stopped the
run), `submission` (the patch), `mini_version` and `config` (the run's configuration, the
model's name under `config.model.model_name`); `messages` every message the model was sent or
answered, each with mini-swe-agent's own `extra`.

Two ways a model turn runs a command:
- text (`trajectory_format: mini-swe-agent-1`): the command mini-swe-agent ran, the one a
  text-mode 2.x answer records in `extra.actions`, else the answer's exactly one fenced
  ```` ```bash ```` block (1.x): a tool call of the `bash` tool with `{"command": ...}` (no
  call id), its result the next user message (the observation). An answer with no or several
  blocks ran nothing (the next message is the format error);
- tool calling (mini-swe-agent 2.x, `mini-swe-agent-1.1`): the answer's OpenAI `tool_calls`
  (`bash`), answered by `role: tool` messages.

The last message may be `role: exit` (2.x), which no model was sent. Times are the messages'
`extra.timestamp` (2.x) or the answer's `extra.response.created` (epoch seconds); a file with
neither lacks a start time.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.body import trace_body
from corpus_tool.ingest.build import model_event, tool_event
from corpus_tool.ingest.chat import message, text_of
from corpus_tool.ingest.coerce import iso_from_epoch, obj, opt_id
from corpus_tool.ingest.imported import Imported
from corpus_tool.ingest.transcript import claim_calls
from corpus_tool.model.values import ABSENT

_BASH_BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)
_EXITS = {"Submitted": "submitted", "LimitsExceeded": "step_limit", "TimeoutError": "failed"}
_REQUEST_ROLES = ("system", "user", "assistant", "tool")


class MiniSweAgentImporter:
    """mini-swe-agent trajectories, text-parsed and tool-calling."""

    name = "mini-swe-agent"

    def sniff(self, data: Any, path: Path) -> bool:
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            return False
        info = data.get("info")
        return str(data.get("trajectory_format") or "").startswith("mini-swe-agent") or (
            isinstance(info, dict) and "mini_version" in info
        )

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError(
                "not a mini-swe-agent trajectory: expected {info, messages, trajectory_format}",
                path,
            )
        info = obj(data.get("info"))
        model = opt_id(obj(obj(info.get("config")).get("model")).get("model_name"))
        kept = [m for m in data["messages"] if isinstance(m, dict)]
        events = _events(kept, model)
        times = [e["timestamp"] for e in events if e.get("timestamp")]
        body = trace_body(
            events,
            started_at=min(times) if times else None,
            agent={"name": "mini-swe-agent", "version": opt_id(info.get("mini_version"))},
            user_message=next(
                (text_of(m.get("content")) for m in kept if m.get("role") == "user"), None
            ),
            terminal=_terminal(info),
            extra={
                "instance_id": data.get("instance_id"),
                "trajectory_format": data.get("trajectory_format"),
                "info": {k: v for k, v in info.items() if k not in ("submission", "config")},
            },
        )
        return [Imported(self.name, body, label=path.name.split(".")[0])]


IMPORTER = MiniSweAgentImporter()


def _events(kept: list[dict[str, Any]], model: str | None) -> list[dict[str, Any]]:
    """Model calls and the commands they ran, in message order."""
    out: list[dict[str, Any]] = []
    asked: dict[str | None, dict[str, Any]] = {}
    renamed: dict[str, str] = {}
    for i, raw in enumerate(kept):
        if raw.get("role") == "assistant":
            event = _model_call(kept[:i], raw, model)
            calls = claim_calls(event, asked, renamed)
            out.append(event)
            command = None if calls else _text_command(raw)
            if command is not None:
                out.append(_text_action(command, kept[i + 1 : i + 2]))
        elif raw.get("role") == "tool":
            out.append(_tool_message(raw, asked, renamed))
        elif raw.get("role") == "exit":
            out += _ended_on(raw, out)
    return out


def _ended_on(raw: dict[str, Any], before: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls of the last answer no tool message answers, when the run ended on them (the
    submit command raises `Submitted`): their result is what the exit message holds."""
    answered = {e.get("call_id") for e in before if e["type"] == "tool_call"}
    last = next((e for e in reversed(before) if e["type"] == "model_call"), None)
    pending = [c for c in (last or {"response": {}})["response"].get("tool_calls") or []]
    return [
        tool_event(
            str(c.get("name") or "unknown_tool"), c.get("id"), c.get("arguments") or {},
            raw.get("content"), extra={"source": "exit message (no tool message answers it)"},
        )
        for c in pending
        if c.get("id") not in answered
    ]  # fmt: skip


def _text_command(raw: dict[str, Any]) -> str | None:
    """The command of a text answer: the one mini-swe-agent recorded (2.x `extra.actions`),
    else the answer's one ```bash block (1.x; 2.x's own block markers are configurable)."""
    actions = obj(raw.get("extra")).get("actions")
    if isinstance(actions, list) and len(actions) == 1 and isinstance(actions[0], dict):
        if actions[0].get("command") is not None:
            return str(actions[0]["command"])
    return parsed_command(raw.get("content"))


def parsed_command(content: Any) -> str | None:
    """The command mini-swe-agent ran for a text answer: its one ```bash block, else none."""
    blocks = _BASH_BLOCK.findall(text_of(content) or "")
    return str(blocks[0]).strip() if len(blocks) == 1 else None


def _model_call(
    before: list[dict[str, Any]], raw: dict[str, Any], model: str | None
) -> dict[str, Any]:
    """An answer; its request is every message before it that a model is sent."""
    extra = obj(raw.get("extra"))
    response = obj(extra.get("response"))
    msg = message(_plain(raw))
    when = extra.get("timestamp") or response.get("created")
    return model_event(
        model,
        [message(_plain(m)) for m in before if m.get("role") in _REQUEST_ROLES],
        text_of(msg.get("content")),
        msg.get("tool_calls") or [],
        usage=response.get("usage"),
        timestamp=iso_from_epoch(when),
        extra={"response_model": response.get("model"), "cost": extra.get("cost")},
    )


def _plain(raw: dict[str, Any]) -> dict[str, Any]:
    """A message without mini-swe-agent's `extra` and the provider's own fields."""
    return {
        k: raw[k]
        for k in ("role", "content", "tool_calls", "tool_call_id")
        if raw.get(k) is not None
    }


def _text_action(command: str, after: list[dict[str, Any]]) -> dict[str, Any]:
    """A command parsed out of the answer text; the result is the message shown next."""
    shown = after[0] if after and after[0].get("role") == "user" else None
    result = shown.get("content") if shown is not None else ABSENT
    return tool_event("bash", None, {"command": command}, result)


def _tool_message(
    raw: dict[str, Any], asked: dict[str | None, dict[str, Any]], renamed: dict[str, str]
) -> dict[str, Any]:
    """A tool message answers the latest call of its id; `extra.returncode` is kept."""
    call_id = opt_id(raw.get("tool_call_id"))
    call = asked.get(renamed.get(call_id or "", call_id), {})
    extra = obj(raw.get("extra"))
    return tool_event(
        str(call.get("name") or "unknown_tool"),
        call.get("id") or call_id,
        call.get("arguments") or {},
        raw.get("content"),
        timestamp=iso_from_epoch(extra.get("timestamp")),
        extra={
            "returncode": extra.get("returncode"),
            "exception_info": extra.get("exception_info") or None,
        },
    )


def _terminal(info: dict[str, Any]) -> dict[str, Any]:
    """`exit_status` as the run's end; the submission (the patch) is the output."""
    status = str(info.get("exit_status") or "")
    kind = _EXITS.get(status, "failed" if status else "unknown")
    submission = info.get("submission")
    return {"status": kind, "output": submission if submission != "" else None}
