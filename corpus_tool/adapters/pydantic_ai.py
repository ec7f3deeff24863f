"""pydantic-ai on a Runtime: the team's own `Agent` replays a case with one capability.

    from corpus_tool.adapters.pydantic_ai import Replay

    def run(case_input, rt):
        result = weather_agent.run_sync(case_input["user_message"], capabilities=[Replay(rt)])
        return {"status": "succeeded", "output": result.output}

`Replay` supplies the run's model, a `FunctionModel` answered by `rt.model` under the name and
profile of the agent's own model (so tool definitions are shaped as the real provider shapes
them), and wraps the agent's toolset so each tool call goes to `rt.tool` after the tool's own
argument validation. What the model is sent is what pydantic-ai's OpenTelemetry
instrumentation records (its own message conversion, instructions first, the tool
definitions), in the importers' chat shape. A recorded `ModelRetry` is raised again as one, so
the model sees the same retry prompt; any other recorded error is raised as the exception the
tool raised.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from corpus_tool.adapters.missing import missing

try:
    from pydantic_ai import ModelRetry
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models import Model
    from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.profiles import ModelProfile
    from pydantic_ai.providers import infer_provider_class
    from pydantic_ai.tools import RunContext
    from pydantic_ai.toolsets import AbstractToolset, WrapperToolset
    from pydantic_ai.toolsets.abstract import ToolsetTool
    from pydantic_core import to_json, to_jsonable_python
except ModuleNotFoundError as err:  # the framework is an extra, not a dependency
    raise missing("pydantic-ai", err) from err

from corpus_tool.adapters.arguments import read_arguments
from corpus_tool.adapters.rebuilt import rebuilt
from corpus_tool.ingest.chat import messages as chat_messages
from corpus_tool.model.values import ModelResponse as Answer
from corpus_tool.model.values import ToolCall
from corpus_tool.replay.runtime import Runtime, ToolError

__all__ = ["Replay", "RoutedToolset", "replay_model"]

_MARK = "_corpus_tool_replay"
"""Set on the models `replay_model` makes, so `Replay` never wraps its own."""
_RETRY = frozenset(("ModelRetry", "ToolRetryError"))
"""Recorded error types that were a tool asking the model to try again."""
_CANCELLED = frozenset(("CancelledError",))
"""A recorded call that was cancelled: pydantic-ai runs one turn's tool calls as tasks and
cancels the rest when one raises, so such a call never finished in production."""
_CANCEL_WAIT_S = 10.0
"""How long a replayed cancelled call waits to be cancelled again (bounded: a run that no
longer fails beside it must not hang)."""


def replay_model(rt: Runtime, model: Model | str) -> FunctionModel:
    """A model answered by `rt.model`, named and profiled like `model` (`openai:gpt-4.1-mini`)."""
    name, profile = _identity(model)
    settings = InstrumentationSettings()

    def ask(messages: list[ModelMessage], info: AgentInfo) -> Answer:
        request: dict[str, Any] = dict(info.model_settings or {})
        return rt.model(
            _chat(settings, info.instructions, messages),
            _tools(info) or None,
            model=name,
            temperature=request.pop("temperature", None),
            **to_jsonable_python(request),
        )

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return _response(ask(messages, info))

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        reply = ask(messages, info)  # the whole answer, streamed as one chunk of each kind
        if reply.content or not reply.tool_calls:
            yield reply.content or ""
        if reply.tool_calls:
            yield {i: _delta(i, call) for i, call in enumerate(reply.tool_calls)}

    made = FunctionModel(answer, stream_function=stream, model_name=name, profile=profile)
    setattr(made, _MARK, True)
    return made


@dataclass
class RoutedToolset(WrapperToolset[Any]):
    """The agent's toolset with every call answered by `rt.tool`."""

    rt: Any = None

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        rt: Runtime = self.rt
        try:
            return rt.tool(name, read_arguments(tool_args, _sent_keys(ctx)))
        except ToolError as err:
            if err.type in _RETRY:
                raise ModelRetry(err.message) from None
            if err.type in _CANCELLED:  # as in production: cancelled by the call that failed
                await asyncio.sleep(_CANCEL_WAIT_S)
            raise rebuilt(err) from None


@dataclass
class Replay(AbstractCapability[Any]):
    """The run's model and tools answered by `rt`: `run_sync(..., capabilities=[Replay(rt)])`.

    A model the agent names (`"openai:gpt-4.1-mini"`) is resolved to a replay model of that name
    without building its provider; a model object is replaced by one named and profiled like it.
    """

    rt: Any

    async def resolve_model_id(self, ctx: Any, *, model_id: str) -> Model | None:
        return replay_model(self.rt, model_id)

    def get_wrapper_model(self, model: Model) -> Model | None:
        return None if getattr(model, _MARK, False) else replay_model(self.rt, model)

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any] | None:
        return RoutedToolset(toolset, rt=self.rt)


def _identity(model: Model | str) -> tuple[str, ModelProfile | None]:
    """The model's name and profile, without building a provider (no API key needed)."""
    if isinstance(model, Model):
        return model.model_name, model.profile
    provider, _, name = model.rpartition(":")
    if not provider:
        return name, None
    return name, infer_provider_class(provider).model_profile(name)


def _chat(
    settings: InstrumentationSettings, instructions: str | None, messages: list[ModelMessage]
) -> list[Any]:
    """The request as pydantic-ai's instrumentation records it: instructions, then messages."""
    head = [{"role": "system", "content": instructions}] if instructions else []
    recorded = json.loads(to_json(settings.messages_to_otel_messages(messages)))
    return head + chat_messages(recorded)


def _tools(info: AgentInfo) -> list[Any]:
    """The tool definitions the instrumentation records (`gen_ai.tool.definitions`): the
    function tools, then the output tools, those withheld from the model left out, each as
    `{type: function, name, description?, parameters?}`. Built from the public request
    parameters (pydantic-ai's own builder lives in a private module)."""
    request = info.model_request_parameters
    offered = [*(request.function_tools or []), *(request.output_tools or [])]
    return [
        _definition(t.name, t.description, t.parameters_json_schema)
        for t in offered
        if request.visibility_of(t.name) != "withheld"
    ]


def _definition(name: str, description: str | None, parameters: Any) -> dict[str, Any]:
    made: dict[str, Any] = {"type": "function", "name": name}
    if description:
        made["description"] = description
    if parameters:
        made["parameters"] = json.loads(to_json(parameters))
    return made


def _response(answer: Answer) -> ModelResponse:
    parts: list[Any] = [TextPart(answer.content)] if answer.content else []
    parts += [
        ToolCallPart(call.name, dict(call.arguments), tool_call_id=call.id or f"call_{i}")
        for i, call in enumerate(answer.tool_calls)
    ]
    return ModelResponse(parts=parts)


def _delta(index: int, call: ToolCall) -> DeltaToolCall:
    call_id = call.id or f"call_{index}"
    return DeltaToolCall(call.name, json.dumps(call.arguments), tool_call_id=call_id)


def _sent_keys(ctx: RunContext[Any]) -> set[str] | None:
    for message in reversed(ctx.messages):
        for part in getattr(message, "parts", ()):
            if isinstance(part, ToolCallPart) and part.tool_call_id == ctx.tool_call_id:
                return set(part.args_as_dict())
    return None
