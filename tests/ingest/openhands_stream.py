"""OpenHands (V0) event streams written from a scripted run, the way OpenHands serializes them.

`openhands-ai` pulls in a whole runtime (docker, browsers, litellm), so this writes the
shape `event_to_dict` gives, as the project's samples show it: user and agent actions with
`args`, observations with `content`, `extras` and `cause` (the action's id), and on each
action the model chose, `tool_call_metadata` with the model's whole response. A `system`
action (OpenHands 0.3x) opens the stream with the prompt and tool definitions. The script is
the test's ground truth.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

SYSTEM = "You are OpenHands agent, a helpful AI assistant that can interact with a computer."
MODEL = "claude-3-5-sonnet-20241022"
TASK = "Rename /workspace/game.py to /workspace/main.py"
TOOLS = [
    {"type": "function", "function": {"name": name, "description": name, "parameters": {}}}
    for name in ("execute_bash", "str_replace_editor", "finish")
]
GREETING = ("hi", "Hello! What should I do?")


@dataclass(frozen=True)
class Step:
    """A scripted tool call: what the model said and asked, and what the tool gave back."""

    thought: str
    name: str
    arguments: dict[str, Any]
    action: str
    observation: str | None  # None: no observation (finish)
    content: str = ""
    extras: dict[str, Any] | None = None


STEPS = (
    Step("Let me look first.", "str_replace_editor", {"command": "view", "path": "/workspace"},
         "read", "read", "/workspace/\n/workspace/game.py", {"path": "/workspace"}),
    Step("Now rename it.", "execute_bash",
         {"command": "mv /workspace/game.py /workspace/main.py"}, "run", "run", "",
         {"command": "mv /workspace/game.py /workspace/main.py", "metadata": {"exit_code": 0}}),
    Step("Check there is no stale copy.", "str_replace_editor",
         {"command": "view", "path": "/workspace/game.py"}, "read", "error",
         "ERROR:\nInvalid `path` parameter: /workspace/game.py. The path does not exist."),
    Step("", "finish", {"message": "Renamed game.py to main.py."}, "finish", None),
)  # fmt: skip
OUTPUT = "Renamed game.py to main.py."


class _Stream:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.clock = datetime(2025, 3, 4, 10, 0, 0)

    def add(self, **event: Any) -> int:
        self.clock += timedelta(milliseconds=1500)
        event = {"id": len(self.events), "timestamp": self.clock.isoformat(), **event}
        self.events.append(event)
        return int(event["id"])


def _metadata(step: Step, n: int) -> dict[str, Any]:
    call = {
        "index": 0, "id": f"toolu_{n:02d}", "type": "function",
        "function": {"name": step.name, "arguments": json.dumps(step.arguments)},
    }  # fmt: skip
    message = {"role": "assistant", "content": step.thought or None, "tool_calls": [call]}
    response = {
        "id": f"chatcmpl-{n}", "model": MODEL, "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
        "usage": {"prompt_tokens": 100 + n, "completion_tokens": 20, "total_tokens": 120 + n},
    }  # fmt: skip
    return {
        "function_name": step.name,
        "tool_call_id": call["id"],
        "model_response": response,
        "total_calls_in_response": 1,
    }


def write_stream(path: Path, greeting: bool = False) -> Path:
    """The event stream of the scripted run (opening with a small talk turn if `greeting`)."""
    stream = _Stream()
    system_args = {"content": SYSTEM, "tools": TOOLS, "openhands_version": "0.39.1",
                   "agent_class": "CodeActAgent"}  # fmt: skip
    stream.add(source="agent", message=SYSTEM, action="system", args=system_args)
    if greeting:
        _user(stream, GREETING[0])
        answer = {"content": GREETING[1], "image_urls": None, "wait_for_response": True}
        stream.add(source="agent", message=GREETING[1], action="message", args=answer)
    _user(stream, TASK)
    for n, step in enumerate(STEPS):
        meta = _metadata(step, n)
        args = {**step.arguments, "thought": step.thought}
        message = OUTPUT if step.action == "finish" else f"Running {step.name}"
        cause = stream.add(
            source="agent", message=message, action=step.action,
            tool_call_metadata=meta, args=args, timeout=120,
        )  # fmt: skip
        if step.observation is not None:
            stream.add(
                source="agent", message=step.content[:40], cause=cause,
                observation=step.observation, tool_call_metadata=meta, content=step.content,
                extras=step.extras or {},
            )  # fmt: skip
    stream.add(
        source="environment", message="", observation="agent_state_changed", content="",
        extras={"agent_state": "finished"},
    )  # fmt: skip
    path.write_text(json.dumps(stream.events, indent=2), encoding="utf-8")
    return path


def _user(stream: _Stream, text: str) -> None:
    args = {"content": text, "image_urls": None, "wait_for_response": False}
    stream.add(source="user", message=text, action="message", args=args)
