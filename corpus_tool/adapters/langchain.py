"""LangChain and LangGraph on a Runtime: a tool-calling loop or a prebuilt ReAct graph replays.

    from corpus_tool.adapters.langchain import ReplayChatModel, replay_tools

    def run(case_input, rt):
        graph = create_react_agent(
            ReplayChatModel(rt=rt, model="gpt-4.1-mini"), replay_tools(TOOLS, rt), prompt=PROMPT
        )
        state = graph.invoke({"messages": [("user", case_input["user_message"])]})
        return {"status": "succeeded", "output": state["messages"][-1].content}

`ReplayChatModel` is a `BaseChatModel` (with `bind_tools`) whose answers come from `rt.model`;
it sends the messages as LangChain's tracer serializes them, which is what a LangSmith export
records. `replay_tools` copies each tool with its body replaced by `rt.tool`: the name,
description, argument schema and error handling stay the tool's own, so arguments are read as
the tool reads them and a recorded error is raised as the exception the tool raised
(`ToolException` included, for tools that handle their own errors).

Record mode uses the same two lines: `live_model(chat_model)` and `live_tools(TOOLS)` are the
model and tools `corpus_tool.record` calls, so production writes a native incident that
replays through this adapter.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from corpus_tool.adapters.missing import missing

try:
    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.language_models import BaseChatModel
    from langchain_core.load import dumpd
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.runnables import Runnable, RunnableConfig
    from langchain_core.tools import BaseTool, ToolException
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from pydantic import ConfigDict, Field
except ModuleNotFoundError as err:  # the framework is an extra, not a dependency
    raise missing("langchain", err) from err

from corpus_tool.adapters.arguments import read_arguments
from corpus_tool.adapters.rebuilt import rebuilt
from corpus_tool.ingest.chat import messages as chat_messages
from corpus_tool.model.values import ModelResponse, ToolCall, Usage
from corpus_tool.replay.runtime import Runtime, ToolError

__all__ = ["ReplayChatModel", "live_model", "live_tools", "replay_tools", "routed"]

_HANDLED = frozenset(("ToolException", "ToolError"))
"""Recorded errors a tool reported itself (LangChain's tracers keep them as a ToolMessage of
status error, which the importers call `ToolError`): raised again as `ToolException`, so the
tool's own `handle_tool_error` turns them into the same message."""
_ARGUMENTS = "__corpus_tool_arguments__"
"""The keyword a routed tool's parsed arguments travel under, from parsing to its body."""


class ReplayChatModel(BaseChatModel):
    """A chat model answered by `rt.model`, named like the model it stands in for."""

    model_config = ConfigDict(arbitrary_types_allowed=True, populate_by_name=True)

    rt: Any = Field(exclude=True)
    model_name: str = Field(alias="model")
    temperature: float | None = None

    @property
    def _llm_type(self) -> str:
        return "corpus-tool-replay"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[Any, AIMessage]:
        """Offer the tools as OpenAI function definitions, as the OpenAI chat model does."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools = kwargs.pop("tools", None)
        if stop is not None:
            kwargs["stop"] = stop
        rt: Runtime = self.rt
        answer = rt.model(
            _chat(messages), tools, model=self.model_name, temperature=self.temperature, **kwargs
        )
        _order(rt).turn(answer.tool_calls)
        return ChatResult(generations=[ChatGeneration(message=_ai_message(answer))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        # in the event loop's thread: no executor thread outlives the case
        return self._generate(messages, stop, None, **kwargs)


def replay_tools(tools: Sequence[BaseTool], rt: Runtime) -> list[BaseTool]:
    """Each tool with its body answered by `rt.tool`."""
    return [routed(t, rt) for t in tools]


def routed(tool: BaseTool, rt: Runtime) -> BaseTool:
    """A copy of `tool` whose body is `rt.tool(name, arguments)`."""
    return _RoutedTool(
        name=tool.name,
        description=tool.description,
        args_schema=tool.args_schema,
        return_direct=tool.return_direct,
        response_format=tool.response_format,
        handle_tool_error=tool.handle_tool_error,
        handle_validation_error=tool.handle_validation_error,
        metadata=tool.metadata,
        tags=tool.tags,
        rt=rt,
        original=tool,
    )


class _RoutedTool(BaseTool):
    """A tool whose body is the runtime: arguments parsed by the original's schema."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    rt: Any = Field(exclude=True)
    original: Any = Field(exclude=True)

    @property
    def _injected_args_keys(self) -> frozenset[str]:
        keys: frozenset[str] = self.original._injected_args_keys
        return keys

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        call_id = input.get("id") if isinstance(input, dict) else None
        with _order(self.rt).slot(call_id):
            return super().invoke(input, config, **kwargs)

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args, kwargs = super()._to_args_and_kwargs(tool_input, tool_call_id)
        if isinstance(tool_input, str) or args:
            arguments = {"input": args[0] if args else tool_input}
        else:  # the model's keys (not defaults it never sent), as the schema read them
            arguments = read_arguments(kwargs, set(tool_input) - self._injected_args_keys)
        return (), {_ARGUMENTS: arguments}

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        rt: Runtime = self.rt
        try:
            result = rt.tool(self.name, kwargs[_ARGUMENTS])
        except ToolError as err:
            if err.type in _HANDLED:
                raise ToolException(err.message) from None
            raise rebuilt(err) from None
        return (result, None) if self.response_format == "content_and_artifact" else result

    async def _arun(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(*args, **kwargs)  # in the event loop's thread, in task order


class _Order:
    """LangGraph runs one turn's tool calls in a thread pool; the runtime sees them in the order
    the model asked for them, so strict replay does not depend on thread scheduling."""

    def __init__(self) -> None:
        self._ready = threading.Condition()
        self._turn: list[str] = []
        self._done: set[str] = set()

    def turn(self, calls: Sequence[ToolCall]) -> None:
        with self._ready:
            self._turn = [str(c.id) for c in calls if c.id is not None]
            self._done = set()
            self._ready.notify_all()

    @contextmanager
    def slot(self, call_id: Any) -> Iterator[None]:
        known = isinstance(call_id, str) and call_id in self._turn
        if known:
            with self._ready:
                ahead = self._turn[: self._turn.index(call_id)]
                # bounded: a call the framework never makes must not hang the run
                self._ready.wait_for(lambda: self._done.issuperset(ahead), timeout=_WAIT_S)
        try:
            yield
        finally:
            if known:
                with self._ready:
                    self._done.add(call_id)
                    self._ready.notify_all()


_WAIT_S = 10.0
_ORDERS: weakref.WeakKeyDictionary[Any, _Order] = weakref.WeakKeyDictionary()
_ORDERS_LOCK = threading.Lock()


def _order(rt: Any) -> _Order:
    with _ORDERS_LOCK:
        order = _ORDERS.get(rt)
        if order is None:
            order = _ORDERS[rt] = _Order()
        return order


def _chat(messages: Sequence[BaseMessage]) -> list[Any]:
    """The messages as LangChain's tracer serializes them, in the importers' chat shape."""
    return chat_messages(json.loads(json.dumps([dumpd(m) for m in messages], default=str)))


def _ai_message(answer: ModelResponse) -> AIMessage:
    calls = [
        {"name": c.name, "args": dict(c.arguments), "id": c.id, "type": "tool_call"}
        for c in answer.tool_calls
    ]
    return AIMessage(content=answer.content or "", tool_calls=calls)


# -- record mode -------------------------------------------------------------------------------
def live_model(chat_model: BaseChatModel) -> Callable[..., ModelResponse]:
    """The model `corpus_tool.record` calls: `chat_model`, asked in LangChain's terms."""

    def ask(messages: list[dict[str, Any]], tools: Any = None, **params: Any) -> ModelResponse:
        params.pop("model", None)
        temperature = params.pop("temperature", None)
        model: Runnable[Any, Any] = chat_model
        if tools:
            model = chat_model.bind_tools(tools, tool_choice=params.pop("tool_choice", None))
        if temperature is not None:
            model = model.bind(temperature=temperature)
        reply = model.invoke([_langchain(m) for m in messages], **params)
        calls = [ToolCall(c.get("id"), c["name"], dict(c["args"])) for c in reply.tool_calls]
        meta = reply.response_metadata or {}
        used = reply.usage_metadata  # what the provider counted, when it says
        return ModelResponse(
            reply.text or None,
            tuple(calls),
            model=meta.get("model_name") or meta.get("model"),
            usage=Usage(used["input_tokens"], used["output_tokens"]) if used else None,
        )

    return ask


def live_tools(tools: Sequence[BaseTool]) -> dict[str, Callable[[dict[str, Any]], Any]]:
    """The tools `corpus_tool.record` calls: each real tool, invoked with the arguments."""
    return {t.name: _invoker(t) for t in tools}


def _invoker(tool: BaseTool) -> Callable[[dict[str, Any]], Any]:
    def call(arguments: dict[str, Any]) -> Any:
        return tool.invoke(arguments)

    return call


def _langchain(message: Mapping[str, Any]) -> BaseMessage:
    """A chat-shape message as the LangChain message it was built from."""
    role, content = message.get("role"), message.get("content") or ""
    if role == "system":
        return SystemMessage(content)
    if role == "user":
        return HumanMessage(content)
    if role == "tool":
        return ToolMessage(content, tool_call_id=str(message.get("tool_call_id")),
                           name=message.get("name"))  # fmt: skip
    calls = [
        {"name": c["name"], "args": dict(c.get("arguments") or {}), "id": c.get("id")}
        for c in message.get("tool_calls") or []
    ]
    return AIMessage(content, tool_calls=calls, name=message.get("name"))
