"""Regenerates the OpenHands SDK fixture: the real SDK runs the script, offline, and persists it.

The SDK needs Python >= 3.12 and cannot be installed beside the test extra, so the fixture is
generated once and committed (`fixtures/openhands_sdk/conversation/`); the tests read it on
any Python. To regenerate it, from the repository root:

    /root/.pyenv/versions/3.12.1/bin/python3.12 -m venv /tmp/ohsdk   # any Python >= 3.12
    /tmp/ohsdk/bin/pip install 'openhands-sdk==1.58.2'
    /tmp/ohsdk/bin/python tests/ingest/openhands_sdk_run.py
    rm -rf /tmp/ohsdk

The model is the SDK's own `TestLLM` (scripted answers from `openhands_sdk_script.STEPS`,
no network); the tools are two small file tools on a temporary workspace, written against
the SDK's tool API, that log what they did. The run is refused (nothing written) unless the
tools did exactly what the script says; the conversation directory the SDK persisted
(`base_state.json` and `events/`) is then copied as it is. Importing this module imports no
SDK: the SDK parts load inside `generate`.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: `tests.ingest` from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.ingest import openhands_sdk_script as script

FIXTURE = Path(__file__).parent / "fixtures" / "openhands_sdk" / "conversation"


def generate(target: Path = FIXTURE) -> None:
    """Runs the script through the SDK and copies its persisted conversation to `target`."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch of the price list
    os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")
    with tempfile.TemporaryDirectory() as tmp:
        workspace, stored = Path(tmp) / "workspace", Path(tmp) / "persisted"
        did = _run(workspace, stored)
        expected = [(s.tool, s.arguments, s.outcome) for s in script.STEPS[:-1]]
        if did != expected:
            raise SystemExit(f"the tools did not do what the script says:\n{did}\n{expected}")
        (conversation,) = [p for p in stored.iterdir() if p.is_dir()]
        _check_no_secret(conversation / "base_state.json")
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(conversation, target)


def _run(workspace: Path, stored: Path) -> list[tuple[str, dict[str, Any], Any]]:
    from openhands.sdk import Agent, Conversation
    from openhands.sdk.testing import TestLLM
    from openhands.sdk.tool import Tool

    workspace.mkdir(parents=True)
    (workspace / "notes.txt").write_text(script.NOTES, encoding="utf-8")
    did: list[tuple[str, dict[str, Any], Any]] = []
    _register_tools(workspace, did)
    llm = TestLLM.from_messages(_answers(), model=script.MODEL)
    agent = Agent(llm=llm, tools=[Tool(name="ReadFileTool"), Tool(name="WriteFileTool")])
    conversation = Conversation(
        agent=agent, workspace=str(workspace), persistence_dir=str(stored), visualizer=None
    )
    for text in (script.GREETING[0], script.TASK):
        conversation.send_message(text)
        conversation.run()
    return did


def _answers() -> list[Any]:
    """The model's scripted answers: the greeting's reply, then one tool call per step."""
    from openhands.sdk import Message, TextContent
    from openhands.sdk.llm import MessageToolCall

    said: list[Any] = [Message(role="assistant", content=[TextContent(text=script.GREETING[1])])]
    for n, step in enumerate(script.STEPS):
        call = MessageToolCall(
            id=script.call_id(n),
            name=step.tool,
            arguments=json.dumps(step.arguments),
            origin="completion",
        )
        content = [TextContent(text=step.thought)] if step.thought else []
        said.append(Message(role="assistant", content=content, tool_calls=[call]))
    return said


def _register_tools(root: Path, did: list[tuple[str, dict[str, Any], Any]]) -> None:
    """Registers `read_file` and `write_file` with the SDK, bound to this workspace and log."""
    from collections.abc import Sequence

    from openhands.sdk.tool import (
        Action,
        Observation,
        ToolDefinition,
        ToolExecutor,
        register_tool,
    )
    from pydantic import Field

    class ReadFileAction(Action):
        path: str = Field(description="file to read, relative to the workspace")

    class WriteFileAction(Action):
        path: str = Field(description="file to write, relative to the workspace")
        text: str = Field(description="what to write")

    class FileObservation(Observation):
        pass

    class ReadFile(ToolExecutor[ReadFileAction, FileObservation]):
        def __call__(self, action: ReadFileAction, conversation: Any = None) -> FileObservation:
            path = root / action.path
            if not path.is_file():
                text = f"no such file: {action.path}"
                did.append(("read_file", {"path": action.path}, _err("ToolError", text)))
                return FileObservation.from_text(text, is_error=True)
            text = path.read_text(encoding="utf-8")
            did.append(("read_file", {"path": action.path}, text))
            return FileObservation.from_text(text)

    class WriteFile(ToolExecutor[WriteFileAction, FileObservation]):
        """Raises on a path outside the workspace: the SDK reports an AgentErrorEvent."""

        def __call__(self, action: WriteFileAction, conversation: Any = None) -> FileObservation:
            args = {"path": action.path, "text": action.text}
            path = (root / action.path).resolve()
            if not path.is_relative_to(root.resolve()):
                problem = f"path escapes the workspace: {action.path}"
                message = f"Error executing tool 'write_file': {problem}"  # the SDK's wording
                did.append(("write_file", args, _err("AgentError", message)))
                raise ValueError(problem)
            path.write_text(action.text, encoding="utf-8")
            text = f"wrote {len(action.text)} characters to {action.path}"
            did.append(("write_file", args, text))
            return FileObservation.from_text(text)

    class ReadFileTool(ToolDefinition[ReadFileAction, FileObservation]):
        @classmethod
        def create(cls, conv_state: Any = None, **params: Any) -> Sequence[ReadFileTool]:
            return [cls(action_type=ReadFileAction, observation_type=FileObservation,
                        description="Read a text file", executor=ReadFile())]  # fmt: skip

    class WriteFileTool(ToolDefinition[WriteFileAction, FileObservation]):
        @classmethod
        def create(cls, conv_state: Any = None, **params: Any) -> Sequence[WriteFileTool]:
            return [cls(action_type=WriteFileAction, observation_type=FileObservation,
                        description="Write a text file", executor=WriteFile())]  # fmt: skip

    register_tool("ReadFileTool", ReadFileTool)
    register_tool("WriteFileTool", WriteFileTool)


def _err(kind: str, message: str) -> dict[str, str]:
    return {"type": kind, "message": message}


def _check_no_secret(state: Path) -> None:
    """The scripted LLM holds no API key; refuse to commit a state that names one."""
    llm = json.loads(state.read_text(encoding="utf-8"))["agent"]["llm"]
    if llm.get("api_key") not in (None, "", "**********"):
        raise SystemExit(f"{state} holds an api_key; not writing a fixture with a secret")


if __name__ == "__main__":
    generate()
    print(f"wrote {FIXTURE}")
