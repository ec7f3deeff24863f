"""The Vercel AI SDK's `ai.*` span attributes (https://ai-sdk.dev/docs/ai-sdk-core/telemetry).

`ai.generateText.doGenerate` / `ai.streamText.doStream` (and the `generateObject` /
`streamObject` ones) are model calls (`ai.prompt.messages`, `ai.prompt.tools`,
`ai.response.text`, `ai.response.toolCalls`, `ai.model.id`, `ai.response.model`, `ai.usage.*`,
`ai.settings.*`); `ai.toolCall` a tool run (`ai.toolCall.name`, `.id`, `.args`, `.result`); the
outer `ai.generateText` / `ai.streamText` the agent. Messages are the SDK's own (content parts
`text`, `tool-call`, `tool-result`; v4 `args`/`result`, v5 `input`/`output`).
"""

from __future__ import annotations

from typing import Any

from corpus_tool.ingest.chat import text_of
from corpus_tool.ingest.coerce import arguments, loads_maybe, obj, opt_id
from corpus_tool.ingest.spans import Facts, Span
from corpus_tool.model.values import ABSENT

_MODEL_OPS = {
    "ai.generateText.doGenerate",
    "ai.streamText.doStream",
    "ai.generateObject.doGenerate",
    "ai.streamObject.doStream",
}
_AGENT_OPS = {"ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"}


def operation(attrs: dict[str, Any], name: str) -> str | None:
    op = str(attrs.get("ai.operationId") or name)
    return op if op in _MODEL_OPS or op in _AGENT_OPS or op == "ai.toolCall" else None


class VercelAI:
    """The AI SDK's `ai.*` span attributes."""

    prefixes: tuple[str, ...] = ("ai.", "operation.name", "resource.name")

    def kind(self, span: Span) -> str | None:
        op = operation(span.attributes, span.name)
        if op in _MODEL_OPS:
            return "model"
        if op == "ai.toolCall":
            return "tool"
        return "agent" if op in _AGENT_OPS else None

    def facts(self, span: Span, kind: str) -> Facts:
        a = span.attributes
        if kind == "model":
            return _model(a, span.io)
        if kind == "tool":
            return {
                "tool": a.get("ai.toolCall.name") or span.name,
                "call_id": a.get("ai.toolCall.id"),
                "arguments": loads_maybe(a.get("ai.toolCall.args", a.get("ai.toolCall.input"))),
                "result": _tool_result(a),
            }
        prompt = obj(loads_maybe(a.get("ai.prompt")))
        return {
            "agent": a.get("ai.telemetry.functionId") or span.name,
            "input": prompt.get("prompt") if isinstance(prompt.get("prompt"), str) else None,
            "output": a.get("ai.response.text"),
        }


def _tool_result(a: dict[str, Any]) -> Any:
    for key in ("ai.toolCall.result", "ai.toolCall.output"):
        if key in a:
            return loads_maybe(a[key])
    return ABSENT


_USAGE = {
    "ai.usage.promptTokens": "input_tokens",
    "ai.usage.inputTokens": "input_tokens",
    "ai.usage.completionTokens": "output_tokens",
    "ai.usage.outputTokens": "output_tokens",
    "ai.usage.totalTokens": "total_tokens",
}


def _sdk_calls(value: Any) -> bool:
    """A list of AI SDK tool calls (what Langfuse shows as a doGenerate span's output)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(c, dict) and "toolCallId" in c for c in value)
    )


def _model(a: dict[str, Any], io: dict[str, Any]) -> Facts:
    """A model call; Langfuse moves `ai.prompt.messages` and `ai.response.toolCalls` out of the
    attributes into the observation's input and output, so those are read there too."""
    settings = {
        k.removeprefix("ai.settings."): v
        for k, v in a.items()
        if k.startswith("ai.settings.") and k != "ai.settings.temperature"
    }
    usage = {_USAGE[k]: v for k, v in a.items() if k in _USAGE}
    tools = a.get("ai.prompt.tools")
    raw_calls = loads_maybe(a.get("ai.response.toolCalls"))
    if raw_calls is None and _sdk_calls(io.get("output")):
        raw_calls = io["output"]
    asked = loads_maybe(a.get("ai.prompt.messages"))
    if asked is None and isinstance(io.get("input"), list):
        asked = io["input"]
    return {
        "model": a.get("ai.response.model") or a.get("ai.model.id"),
        "requested_model": a.get("ai.model.id"),
        "messages": sdk_messages(asked),
        "content": a.get("ai.response.text") or a.get("ai.response.object"),
        "calls": [_call(c) for c in raw_calls if isinstance(c, dict)]
        if isinstance(raw_calls, list)
        else [],
        "tools": [loads_maybe(t) for t in tools] if isinstance(tools, list) else None,
        "temperature": a.get("ai.settings.temperature"),
        "params": settings or None,
        "finish_reason": a.get("ai.response.finishReason"),
        "usage": usage or None,
    }


def _call(raw: dict[str, Any]) -> dict[str, Any]:
    """An AI SDK tool call: `{toolCallId, toolName, args}` (v4) or `{..., input}` (v5)."""
    return {
        "id": opt_id(raw.get("toolCallId")),
        "name": str(raw.get("toolName") or ""),
        "arguments": arguments(raw.get("input", raw.get("args"))),
    }


def sdk_messages(raw: Any) -> list[dict[str, Any]]:
    """AI SDK model messages as chat messages (a tool message per tool result)."""
    out: list[dict[str, Any]] = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            out.extend(_message(item))
    return out


def _message(raw: dict[str, Any]) -> list[dict[str, Any]]:
    role, content = str(raw.get("role") or "user"), raw.get("content")
    if not isinstance(content, list):
        return [{"role": role, "content": content}]
    parts = [p for p in content if isinstance(p, dict)]
    results = [p for p in parts if p.get("type") == "tool-result"]
    if results:
        return [
            {"role": "tool", "tool_call_id": opt_id(p.get("toolCallId")),
             "name": p.get("toolName"), "content": _output(p)}
            for p in results
        ]  # fmt: skip
    calls = [_call(p) for p in parts if p.get("type") == "tool-call"]
    texts = [p for p in parts if p.get("type") in ("text", "reasoning") or "type" not in p]
    message: dict[str, Any] = {"role": role, "content": text_of(texts)}
    if calls:
        message["tool_calls"] = calls
    return [message]


def _output(part: dict[str, Any]) -> Any:
    """A tool-result part's value: v5 `output: {type, value}`, v4 `result`."""
    output = part.get("output")
    if isinstance(output, dict) and "value" in output:
        return output["value"]
    return output if "output" in part else part.get("result")
