"""What the LangChain importer and adapter tests share: a hand-written tool loop and a
stand-in LangSmith client that keeps the run payloads LangChain's own tracer sends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig


class RecordingClient:
    """Stands in for the LangSmith client: keeps the run payloads the tracer posts and patches."""

    def __init__(self) -> None:
        self.post: list[dict[str, Any]] = []
        self.patch: list[dict[str, Any]] = []

    def create_run(self, **run: Any) -> None:
        self.post.append(run)

    def update_run(self, run_id: Any, **run: Any) -> None:
        self.patch.append({"id": run_id, **run})

    def flush(self) -> None:
        pass


def tool_loop(
    model: Any,
    tools: list[Any],
    system: str,
    catches: type[Exception],
    shown: Callable[[Exception], str],
) -> Callable[[str, RunnableConfig], Any]:
    """A hand-written tool-calling loop: ask, run each tool asked for, until an answer; a tool
    raising `catches` is answered to the model with `shown(err)`."""
    by_name = {t.name: t for t in tools}

    def loop(question: str, config: RunnableConfig) -> Any:
        messages: list[Any] = [SystemMessage(system), HumanMessage(question)]
        while True:
            ai = model.invoke(messages, config=config)
            messages.append(ai)
            if not ai.tool_calls:
                return ai.content
            for call in ai.tool_calls:
                try:
                    messages.append(by_name[call["name"]].invoke(call, config=config))
                except catches as err:
                    messages.append(ToolMessage(content=shown(err), tool_call_id=call["id"]))

    return loop
