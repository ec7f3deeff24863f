"""The OpenAI Agents SDK on a Runtime: the team's own `Agent`, run by `Runner`, replays a case.

    from corpus_tool.adapters.openai_agents import replayable, run_config

    def run(case_input, rt):
        result = Runner.run_sync(
            replayable(triage_agent, rt), case_input["user_message"], run_config=run_config(rt)
        )
        return {"status": "succeeded", "output": result.final_output}

`ReplayModel` is an SDK `Model` whose answers come from `rt.model`; it sends what the SDK's
Chat Completions model sends (the same converter builds the messages, system prompt first, and
the tool definitions), which is what a generation span of the SDK's tracing export records.
`replayable` copies an agent (and every agent it hands off to) with that model and with each
function tool's body replaced by `rt.tool`: the SDK's own pipeline still runs around it, so a
recorded tool error reaches the agent's `failure_error_function` as the exception the tool
raised, and the model sees what it saw in production. `run_config` turns the SDK's tracing off
(its exporter thread and its network calls have no place in a replay).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from corpus_tool.adapters.missing import missing

try:
    from agents import (
        Agent,
        FunctionTool,
        Handoff,
        ModelProvider,
        ModelSettings,
        RunConfig,
        Usage,
        handoff,
    )
    from agents.exceptions import ModelBehaviorError
    from agents.function_schema import function_schema
    from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
    from agents.models.chatcmpl_converter import Converter
    from agents.models.default_models import get_default_model
    from agents.models.interface import Model, ModelTracing
    from agents.tool import Tool, with_function_tool_failure_error_handler
    from openai.types.chat import ChatCompletionMessage
    from openai.types.chat.chat_completion_message_function_tool_call import (
        ChatCompletionMessageFunctionToolCall,
        Function,
    )
    from openai.types.responses import Response, ResponseCompletedEvent
except ModuleNotFoundError as err:  # the framework is an extra, not a dependency
    raise missing("openai-agents", err) from err

from corpus_tool.adapters.arguments import read_arguments
from corpus_tool.adapters.rebuilt import rebuilt
from corpus_tool.ingest.chat import messages as chat_messages
from corpus_tool.model.events import ModelCallEvent
from corpus_tool.model.values import ModelResponse as Answer
from corpus_tool.replay.runtime import Runtime, ToolError

__all__ = ["ReplayModel", "ReplayProvider", "replayable", "routed", "run_config"]


class ReplayModel(Model):
    """An SDK model answered by `rt.model`, named like the model the agent asks for.

    `model=None` (a team's own `Model` that says no name): replay asks under no name, so the
    recording's model id is the one the run records, and the name is never a guess.
    """

    def __init__(self, rt: Runtime, model: str | None) -> None:
        self.rt = rt
        self.model = model

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: Any,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
    ) -> ModelResponse:
        answer = self.rt.model(
            _messages(system_instructions, input, self.model),
            _tools(tools, handoffs) or None,
            model=self.model,
            temperature=model_settings.temperature,
            **_params(model_settings),
        )
        output = _output(answer, self.model or _answered_by(self.rt), self.rt.last_seq)
        return ModelResponse(output=output, usage=Usage(requests=1), response_id=None)

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: Any,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """`Runner.run_streamed`: the whole answer as one completed response."""
        response = await self.get_response(
            system_instructions, input, model_settings, tools, output_schema, handoffs,
            tracing, previous_response_id=previous_response_id,
            conversation_id=conversation_id, prompt=prompt,
        )  # fmt: skip
        completed = Response(
            id="__fake_id__", created_at=0, model=self.model or _answered_by(self.rt),
            object="response",
            output=response.output, tool_choice="auto", tools=[], top_p=None,
            parallel_tool_calls=False,
        )  # fmt: skip
        yield ResponseCompletedEvent(
            type="response.completed", response=completed, sequence_number=0
        )


class ReplayProvider(ModelProvider):
    """Every model name the agents ask for, answered by `rt.model`."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def get_model(self, model_name: str | None) -> Model:
        return ReplayModel(self.rt, _named(model_name or get_default_model()))


def run_config(rt: Runtime, base: RunConfig | None = None) -> RunConfig:
    """`base` (or a default RunConfig) with the replay provider and the SDK's tracing off."""
    return dataclasses.replace(
        base or RunConfig(), model_provider=ReplayProvider(rt), tracing_disabled=True
    )


def replayable(agent: Agent[Any], rt: Runtime, *, model: str | None = None) -> Agent[Any]:
    """A copy of `agent` (and of every agent it hands off to) answered through `rt`.

    `model` names the replay model of an agent whose model is a `Model` object that says no
    name (no `.model`); without it such an agent replays under the recording's model id.
    """
    return _copy(agent, rt, {}, model)


def _copy(
    agent: Agent[Any], rt: Runtime, done: dict[int, Agent[Any]], name: str | None = None
) -> Agent[Any]:
    if id(agent) in done:  # agents that hand off to each other
        return done[id(agent)]
    if agent.mcp_servers:
        raise TypeError(
            f"agent {agent.name!r}: tools from MCP servers cannot be routed through rt.tool; "
            "give the agent its tools as function tools to replay it"
        )
    replay = _model(agent.model, rt, name)
    copy = agent.clone(model=replay, tools=[routed(t, rt) for t in agent.tools])
    done[id(agent)] = copy
    copy.handoffs = [_handoff(agent.name, h, rt, done, name) for h in agent.handoffs]
    return copy


def _model(model: str | Model | None, rt: Runtime, name: str | None) -> Model | None:
    """The agent's model as a replay model of the same name (none: run_config's provider).

    A `Model` object is named by its `.model` (the SDK's own models), else by `name`, else
    not at all: the recording names it. Never the SDK's default model, which it is not."""
    if model is None:
        return None
    if isinstance(model, str):
        return ReplayModel(rt, _named(model))
    said = getattr(model, "model", None)
    return ReplayModel(rt, _named(said) if isinstance(said, str) and said else name)


def _answered_by(rt: Runtime) -> str:
    """The model id the latest model call was recorded under (what answered it)."""
    for event in reversed(rt.events):
        if isinstance(event, ModelCallEvent):
            return event.model or "unknown"
    return "unknown"


def _named(model: str) -> str:
    """The name the SDK's OpenAI model reports (and its trace records): `openai/` dropped, as
    the SDK's default provider drops it."""
    return model.removeprefix("openai/")


def _handoff(
    source: str,
    target: Agent[Any] | Handoff[Any, Any],
    rt: Runtime,
    done: dict[int, Agent[Any]],
    name: str | None = None,
) -> Handoff[Any, Any]:
    """The handoff, with its transfer call answered by `rt.tool` (the export records it as a
    tool call) and a `handoff` event, then the replayable copy of the agent it hands to."""
    made = handoff(target) if isinstance(target, Agent) else target
    invoke = made.on_invoke_handoff

    async def handed(ctx: Any, payload: str) -> Agent[Any]:
        try:
            rt.tool(made.tool_name, json.loads(payload) if payload else {})
        except ToolError as err:
            raise rebuilt(err) from None
        rt.emit("handoff", **{"from": source, "to": made.agent_name})
        return _copy(await invoke(ctx, payload), rt, done, name)

    return dataclasses.replace(made, on_invoke_handoff=handed)


def routed(tool: Tool, rt: Runtime) -> FunctionTool:
    """A copy of a function tool whose body is `rt.tool(name, arguments)`.

    Everything around the body stays the SDK's: guardrails, approval, timeouts, and the tool's
    failure handling, which gets the recorded error as the exception the tool raised.
    """
    if not isinstance(tool, FunctionTool):
        raise TypeError(
            f"{type(tool).__name__} {getattr(tool, 'name', '')!r} cannot be routed through "
            "rt.tool; only function tools replay"
        )
    name, read = tool.name, _reader(tool)

    async def body(ctx: Any, input_json: str) -> Any:
        try:
            return rt.tool(name, read(input_json))
        except ToolError as err:
            raise rebuilt(err) from None

    invoker = with_function_tool_failure_error_handler(body, lambda *_: None)
    return dataclasses.replace(tool, on_invoke_tool=invoker)


def _reader(tool: FunctionTool) -> Callable[[str], dict[str, Any]]:
    """How the tool reads the model's JSON: its signature's validation, as `function_tool`
    builds it (a hand-made FunctionTool has no signature: its JSON as sent)."""
    try:
        func = tool.__wrapped__
    except AttributeError:
        func = None
    schema = function_schema(func, name_override=tool.name) if func is not None else None

    def read(input_json: str) -> dict[str, Any]:
        try:
            raw = json.loads(input_json) if input_json else {}
            if not isinstance(raw, dict):
                raise TypeError("the arguments are not a JSON object")
            parsed = dict(schema.params_pydantic_model(**raw)) if schema is not None else raw
        except (ValueError, TypeError) as err:  # pydantic's ValidationError is a ValueError
            raise ModelBehaviorError(f"Invalid JSON input for tool {tool.name}: {err}") from err
        return read_arguments(parsed, set(raw))

    return read


def _messages(
    system: str | None, items: str | list[TResponseInputItem], model: str | None
) -> list[Any]:
    """The request's messages as the SDK's Chat Completions model builds them, in chat shape."""
    converted: list[Any] = list(Converter.items_to_messages(items, model=model))
    if system:
        converted.insert(0, {"content": system, "role": "system"})
    return chat_messages(_jsonable(converted))


def _tools(tools: list[Tool], handoffs: list[Handoff[Any, Any]]) -> list[Any]:
    """The tool definitions the SDK's Chat Completions model sends, handoffs last."""
    offered = [Converter.tool_to_openai(t) for t in tools]
    offered += [Converter.convert_handoff_tool(h) for h in handoffs]
    return list(_jsonable(offered))


def _params(settings: ModelSettings) -> dict[str, Any]:
    """The settings the agent set (what the SDK's trace records as `model_config`)."""
    traced = settings.to_traceable_dict()
    return {k: v for k, v in traced.items() if v is not None and k != "temperature"}


def _output(answer: Answer, model: str, seq: int) -> list[Any]:
    """The SDK's output items for an answer, made by its own Chat Completions converter.

    A recorded call without an id (Responses-API spans hold none) gets one named for the
    model call's `seq` and its place: unique across turns, as the SDK requires of ids."""
    calls: list[Any] = [
        ChatCompletionMessageFunctionToolCall(
            id=call.id or f"call_{seq}_{i}",
            type="function",
            function=Function(name=call.name, arguments=json.dumps(call.arguments)),
        )
        for i, call in enumerate(answer.tool_calls)
    ]
    message = ChatCompletionMessage(
        role="assistant", content=answer.content, tool_calls=calls or None
    )
    return list(Converter.message_to_output_items(message, provider_data={"model": model}))


def _jsonable(value: Any) -> Any:
    """What the trace export holds: JSON, iterables as lists."""
    return json.loads(json.dumps(value, default=list))
