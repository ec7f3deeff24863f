"""The scripted OpenHands SDK conversation, as plain data: the ground truth of the fixture.

`openhands_sdk_run` drives the real SDK with it (its scripted model answers each step, its
file tools do what each step says) and checks the tools did exactly that before it writes
the fixture; `test_openhands_sdk` compares the imported case with it. Importable on any
Python (no SDK import).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MODEL = "litellm_proxy/scripted-model-v1"
"""The model id the SDK's scripted LLM is configured with (it lands in base_state.json)."""

NOTES = "remember the milk\n"
"""notes.txt in the workspace before the run."""

GREETING = ("hi", "Hello! What should I do?")
"""The first user turn, and the model's plain answer (no tool call) that ends that turn."""

TASK = "Copy notes.txt to backup.txt"
"""The later user turn: the task the tool calls below carry out."""

OUTPUT = "Copied notes.txt to backup.txt."

ESCAPE = "path escapes the workspace: ../backup.txt"
"""What the write tool raises for a path outside the workspace."""


@dataclass(frozen=True)
class Step:
    """One model answer with one tool call, and what the tool gave back.

    `outcome` is the result text, or `{type, message}` when the call failed: a tool's own
    error observation is a `ToolError`; a tool that raised is reported by the SDK as an
    `AgentErrorEvent` (an `AgentError`, its message in the SDK's own wording).
    """

    thought: str
    tool: str
    arguments: dict[str, Any]
    outcome: Any


STEPS: tuple[Step, ...] = (
    Step("Let me read it first.", "read_file", {"path": "notes.txt"}, NOTES),
    Step(
        "Is there an old backup?",
        "read_file",
        {"path": "backup.txt"},
        {"type": "ToolError", "message": "no such file: backup.txt"},
    ),
    Step(
        "Write the copy.",
        "write_file",
        {"path": "../backup.txt", "text": NOTES},
        {"type": "AgentError", "message": f"Error executing tool 'write_file': {ESCAPE}"},
    ),
    Step(
        "Inside the workspace, then.",
        "write_file",
        {"path": "backup.txt", "text": NOTES},
        f"wrote {len(NOTES)} characters to backup.txt",
    ),
    Step("", "finish", {"message": OUTPUT}, OUTPUT),
)
"""The model's answers after TASK, in order; `finish` ends the run with its message."""


def call_id(n: int) -> str:
    """The id of the scripted model's n-th tool call."""
    return f"call_{n}"
