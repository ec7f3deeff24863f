"""SWE-agent `.traj` files written the way SWE-agent 1.x writes them, from a scripted run.

SWE-agent is not installable from PyPI, so this mirrors its writer (`DefaultAgent.
add_step_to_history`, `get_trajectory_data`): a system message, the instance message, then
per step the assistant message and the observation message built from the step's template;
the step list in `trajectory`; `info` with exit status and submission; `replay_config` as a
JSON string naming the model. The scripted steps are the test's ground truth.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SYSTEM = "SETTING: You are an autonomous programmer working in a shell."
INSTANCE = "ISSUE: `python app.py` fails with SyntaxError on line 2. Fix it."
MODEL = "gpt-4o-2024-08-06"
PATCH = "diff --git a/app.py b/app.py\n-def main()\n+def main():\n"


@dataclass(frozen=True)
class Step:
    """One scripted step: what the model said, the command it chose, what the shell printed."""

    thought: str
    name: str
    arguments: dict[str, Any]
    command: str
    observation: str


STEPS = (
    Step("Let me find the file.", "find_file", {"file_name": "app.py"}, "find_file app.py",
         "Found 1 matches for \"app.py\" in /repo:\n/repo/app.py"),
    Step("Line 2 lacks a colon; add it.", "edit",
         {"search": "def main()", "replace": "def main():"},
         "edit 'def main()' 'def main():'", "Text replaced."),
    Step("The fix is in; submit.", "submit", {}, "submit", PATCH),
)  # fmt: skip


def thought_action_text(step: Step) -> str:
    """The answer text of a thought-action model: a thought, then the command in a fence."""
    return f"{step.thought}\n\n```\n{step.command}\n```"


def observation_message(step: Step) -> str:
    """SWE-agent 1.x's default `next_step_template`."""
    return f"Observation: {step.observation}"


def write_traj(path: Path, function_calling: bool, steps: tuple[Step, ...] = STEPS) -> Path:
    """A `.traj` of the scripted run, in the function-calling or the thought-action form."""
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM, "agent": "main", "message_type": "system_prompt"},
        {"role": "user", "content": INSTANCE, "agent": "main", "message_type": "observation"},
    ]
    trajectory = []
    for i, step in enumerate(steps):
        call_id = f"call_{i}"
        response = step.thought if function_calling else thought_action_text(step)
        assistant: dict[str, Any] = {
            "role": "assistant", "content": response, "thought": step.thought,
            "action": step.command, "agent": "main", "message_type": "action",
            "tool_calls": None,
        }  # fmt: skip
        if function_calling:
            arguments = json.dumps(step.arguments)
            function = {"name": step.name, "arguments": arguments}
            assistant["tool_calls"] = [{"id": call_id, "type": "function", "function": function}]
        history.append(assistant)
        last = i == len(steps) - 1
        if function_calling or not last:  # thought-action runs end on submit, unrecorded
            shown: dict[str, Any] = {
                "role": "tool" if function_calling else "user",
                "content": observation_message(step),
                "agent": "main",
                "message_type": "observation",
            }
            if function_calling:
                shown["tool_call_ids"] = [call_id]
            history.append(shown)
        trajectory.append(
            {
                "action": step.command, "observation": step.observation, "response": response,
                "thought": step.thought, "execution_time": 0.25,
                "state": {"working_dir": "/repo"},
            }
        )  # fmt: skip
    config = {"agent": {"name": "main", "model": {"name": MODEL, "temperature": 0.0}}}
    doc = {
        "environment": "main",
        "trajectory": trajectory,
        "history": history,
        "info": {
            "swe_agent_version": "1.0.1",
            "exit_status": "submitted",
            "submission": PATCH,
            "model_stats": {"api_calls": len(steps)},
        },
        "replay_config": json.dumps(config),
    }
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path
