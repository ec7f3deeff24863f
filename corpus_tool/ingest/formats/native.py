"""The native incident format: camelCase JSON, a flat event list ordered by seq.

README.md, "The native incident format", describes it. `NativeRun` reads one event at a
time (what `corpus add` streams a long run with, author.streamed): the events as `event_of`
converts them, in order, reused call ids renamed as they pass (call_ids.CallIds), what the run
needs of all of them (the models, the `final` event) kept; the errors are the whole read's, in
its order: a JSON syntax error anywhere (`NotStreamed`: the caller reads the file whole, whose
parse says it) before an event's, an event's before those of the top-level keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest import SHAPE_ERRORS, shape_error
from corpus_tool.ingest.body import first_user_text, models_of
from corpus_tool.ingest.call_ids import CallIds, unique_call_ids
from corpus_tool.ingest.imported import Imported
from corpus_tool.io.json_stream import NotStreamed, StreamedObject
from corpus_tool.model.values import parse_error

EVENT_TYPES = (
    "llm_request",
    "tool_call",
    "error",
    "state_change",
    "side_effect",
    "handoff",
    "retry",
    "final",
)
STATUS_SYNONYMS = {
    "success": "succeeded",
    "ok": "succeeded",
    "completed": "succeeded",
    "done": "succeeded",
    "error": "failed",
    "failure": "failed",
    "timeout": "failed",
    "escalated": "needs_human",
}
_COMMON = {
    "seq": "seq",
    "type": "type",
    "node": "node",
    "timestamp": "timestamp",
    "durationMs": "duration_ms",
    "truncated": "truncated",
    "parent": "parent",
}
_PARAMS = {
    "maxTokens": "max_tokens",
    "topP": "top_p",
    "toolChoice": "tool_choice",
    "responseFormat": "response_format",
    "stop": "stop",
    "seed": "seed",
}


class NativeImporter:
    """Reads the native incident format."""

    name = "native"

    def sniff(self, data: Any, path: Path) -> bool:
        return (
            isinstance(data, dict)
            and isinstance(data.get("events"), list)
            and ("traceId" in data or "schemaVersion" in data)
        )

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not isinstance(data, dict) or not isinstance(data.get("events"), list):
            raise InputError(
                "not a native incident: expected an object with an `events` list", path
            )
        return [
            Imported(
                format=self.name,
                body=_body(data, path),
                trace_id=_opt_str(data.get("traceId")),
                session_id=_opt_str(data.get("sessionId")),
            )
        ]


IMPORTER = NativeImporter()
_TOP = {
    "schemaVersion",
    "traceId",
    "sessionId",
    "startedAt",
    "timezone",
    "seed",
    "appVersion",
    "agent",
    "input",
    "events",
    "toolSchemaHash",
}


def _body(data: dict[str, Any], path: Path) -> dict[str, Any]:
    check_mcp_servers(data.get("mcpServers", {}), path)  # kept in `extra` (model/mcp.py)
    events, final = _events(data["events"], path)
    return body_of(data, events, final, path)


def body_of(
    data: dict[str, Any],
    events: list[dict[str, Any]],
    final: dict[str, Any] | None,
    path: Path,
    models: list[str] | None = None,
    first_user: str | None = None,
) -> dict[str, Any]:
    """The trace body of a native incident's top-level keys (`events` left out or not) and
    its events in trace form; `models` and `first_user` (the first model call's first user
    message): the events' when `events` holds none (a streamed run: the events are written
    as they come)."""
    agent: dict[str, Any] = data["agent"] if isinstance(data.get("agent"), dict) else {}
    if models is None:
        models, first_user = models_of(events), first_user_text(events)
    body: dict[str, Any] = {
        "recorded": _recorded(data, agent, models),
        "input": _input(data.get("input"), path, first_user),
        "events": events,
        "terminal": _terminal(final),
    }
    extra = {k: v for k, v in data.items() if k not in _TOP}
    final_extra = {k: v for k, v in (final or {}).items() if k not in _FINAL}
    if final_extra:
        extra["final"] = final_extra
    agent_extra = {k: v for k, v in agent.items() if k not in _AGENT}
    if agent_extra:
        extra["agent"] = agent_extra
    if extra:
        body["extra"] = extra
    return body


_AGENT = {
    "name": "name",
    "version": "version",
    "configHash": "config_hash",
    "promptVersion": "prompt_version",
    "toolSchemaHash": "tool_schema_hash",
}


def _recorded(data: dict[str, Any], agent: dict[str, Any], models: list[str]) -> dict[str, Any]:
    facts = {snake: agent[camel] for camel, snake in _AGENT.items() if camel in agent}
    schema_hash = facts.pop("tool_schema_hash", data.get("toolSchemaHash"))
    if "version" not in facts and data.get("appVersion") is not None:
        facts["version"] = data["appVersion"]
    recorded: dict[str, Any] = {"started_at": data.get("startedAt")}
    for key, camel in (("timezone", "timezone"), ("seed", "seed"), ("app_version", "appVersion")):
        if data.get(camel) is not None:
            recorded[key] = data[camel]
    recorded["agent"] = facts
    recorded["models"] = models
    if schema_hash is not None:
        recorded["tool_schema_hash"] = schema_hash
    return recorded


def _input(raw: Any, path: Path, first_user: str | None) -> dict[str, Any]:
    """The case input: `input` as written; absent (a gateway logs requests, not the run's
    input), the first user message the first model call was sent, as the other importers."""
    if raw is None:
        return {"user_message": first_user, "context": {}, "conversation": []}
    if not isinstance(raw, dict):
        raise InputError("`input` must be an object with userMessage, context, conversation", path)
    known = {"userMessage": "user_message", "context": "context", "conversation": "conversation"}
    out: dict[str, Any] = {
        "user_message": raw.get("userMessage"),
        "context": raw.get("context") or {},
        "conversation": raw.get("conversation") or [],
    }
    extra = {k: v for k, v in raw.items() if k not in known}
    if extra:
        out["extra"] = extra
    return out


def _events(raw: list[Any], path: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    events: list[dict[str, Any]] = []
    final: dict[str, Any] | None = None
    for index, event in enumerate(raw):
        converted = event_of(event, index, path)
        if converted is None:
            final = event
        else:
            events.append(converted)
    return unique_call_ids(events), final


def event_of(event: Any, index: int, path: Path) -> dict[str, Any] | None:
    """`events[index]` of a native incident in trace form (its call ids as recorded:
    call_ids.CallIds renames reused ones); None for the `final` event, which is the run's
    terminal (body_of)."""
    where = f"events[{index}]"
    if not isinstance(event, dict):
        raise InputError(f"{where} is not an object", path)
    kind = event.get("type")
    if kind not in EVENT_TYPES:
        raise InputError(
            f"{where}: unknown event type {kind!r}; known: {', '.join(EVENT_TYPES)}", path
        )
    if not isinstance(event.get("seq"), int) or isinstance(event.get("seq"), bool):
        raise InputError(f"{where}: `seq` must be an integer", path)
    if kind == "final":
        return None
    return _CONVERTERS[kind](event, where, path)


def _split(event: dict[str, Any], known: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Known camelCase keys renamed to snake_case; the rest returned as extra."""
    table = {**_COMMON, **known}
    out = {table[k]: v for k, v in event.items() if k in table}
    extra = {k: v for k, v in event.items() if k not in table}
    return out, extra


def _finish(out: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    if extra:
        out["extra"] = extra
    return out


def _model_call(event: dict[str, Any], where: str, path: Path) -> dict[str, Any]:
    out, extra = _split(event, {"model": "model", "usage": "usage"})
    out["type"] = "model_call"
    request: dict[str, Any] = {"messages": _messages(extra.pop("messages", []))}
    if "tools" in extra:
        request["tools"] = _tools(extra.pop("tools"), where, path)
    if "temperature" in extra:
        request["temperature"] = extra.pop("temperature")
    raw_response = extra.pop("response", None)
    params = {_PARAMS.get(k) or _snake(k): extra.pop(k) for k in list(extra) if k not in _NOT_SENT}
    response = _response(raw_response, where, path, extra)
    if params:
        request["params"] = params
    out["request"] = request
    out["response"] = response
    return _finish(_ordered(out, ("seq", "type", "node", "model", "request", "response")), extra)


_SDK_NULLS = frozenset({"refusal", "annotations", "audio", "function_call"})
"""Fields the openai SDK fills in an assistant message it hands back (null or empty): what an
agent that sends the SDK's message back puts on the wire, and replay's double drops."""


def _messages(raw: Any) -> Any:
    """The request messages, an assistant message logged off the wire (a gateway's log) in
    the native shape, as replay's OpenAI double reads the agent's request: Chat Completions
    tool calls `{id, type: function, function: {name, arguments: "<json>"}}` as
    `{id, name, arguments}`, the arguments parsed (a streamed call's `index` and the like
    dropped, as the double drops them from what the agent sends); the SDK's null and empty
    fields dropped. A call whose arguments are not a JSON object stays as it came. Other
    messages unchanged (and the list itself, when none changed: this runs on every event)."""
    if type(raw) is not list:
        return raw
    out = None
    for i, message in enumerate(raw):
        if type(message) is dict and message.get("role") == "assistant":
            read = _wire_assistant(message)
            if read is not message:
                out = out or list(raw)
                out[i] = read
    return raw if out is None else out


def _wire_assistant(message: dict[str, Any]) -> dict[str, Any]:
    calls = message.get("tool_calls")
    if type(calls) is not list:
        calls = []
    wire = False
    for call in calls:
        if type(call) is dict and "function" in call:
            wire = True
            break
    nulls = _SDK_NULLS.intersection(message)
    if nulls:
        nulls = frozenset(k for k in nulls if not message[k])
    if not wire and not nulls:
        return message
    out = {k: v for k, v in message.items() if k not in nulls}
    if wire:
        out["tool_calls"] = [_wire_call(c) for c in calls]
    return out


def _wire_call(call: Any) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or call.get("type", "function") != "function":
        return call
    text = function.get("arguments")
    try:
        arguments = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return call
    if not isinstance(arguments, dict) or not isinstance(function.get("name"), str):
        return call
    return {"id": call.get("id"), "name": function["name"], "arguments": arguments}


_NOT_SENT = {"id", "requestId", "provider", "latencyMs", "cost", "costUsd", "metadata", "error"}
"""Keys of an llm_request that describe the call rather than what was sent: kept in `extra`.
Every other key the table does not name is a request parameter (as `record()` writes them)."""


def _snake(key: str) -> str:
    """`presencePenalty` -> `presence_penalty`; snake_case keys stay as they are."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def _tools(raw: Any, where: str, path: Path) -> list[Any]:
    if not isinstance(raw, list):
        raise InputError(
            f"{where}.tools must be a list of tool definitions, or left out when none were "
            f"recorded (found {type(raw).__name__ if raw is not None else 'null'})",
            path,
        )
    return raw


def _response(raw: Any, where: str, path: Path, extra: dict[str, Any]) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError(f"{where}.response must be an object with content and toolCalls", path)
    response: dict[str, Any] = {"content": raw.get("content")}
    calls = raw.get("toolCalls", raw.get("tool_calls"))
    rest = {
        k: v
        for k, v in raw.items()
        if k not in ("content", "toolCalls", "tool_calls", "finishReason")
    }
    if calls:
        pairs = [
            _requested_call(c, f"{where}.response.toolCalls[{i}]", path)
            for i, c in enumerate(calls)
        ]
        response["tool_calls"] = [call for call, _ in pairs]
        if any(more for _, more in pairs):  # `type: function` and the like, by position
            rest["toolCalls"] = [more for _, more in pairs]
    if raw.get("finishReason") is not None:
        response["finish_reason"] = raw["finishReason"]
    if rest:
        extra["response"] = rest
    return response


def _requested_call(raw: Any, where: str, path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The call in trace form, and the keys it has no place for."""
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise InputError(f"{where} needs a `name`", path)
    call = {
        "id": _opt_str(raw.get("id")),
        "name": raw["name"],
        "arguments": _arguments(raw.get("arguments", {}), where, path),
    }
    return call, {k: v for k, v in raw.items() if k not in ("id", "name", "arguments")}


def _arguments(raw: Any, where: str, path: Path) -> dict[str, Any]:
    if isinstance(raw, str):  # providers send arguments as a JSON string
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            raise InputError(f"{where}: arguments are not valid JSON", path) from None
    if not isinstance(raw, dict):
        raise InputError(f"{where}: arguments must be an object", path)
    return raw


def _tool_call(event: dict[str, Any], where: str, path: Path) -> dict[str, Any]:
    out, extra = _split(
        event,
        {
            "tool": "tool",
            "callId": "call_id",
            "result": "result",
            "egress": "egress",
            "idempotencyKey": "idempotency_key",
        },
    )
    out["type"] = "tool_call"
    raw_args = extra.pop("input", extra.pop("arguments", {}))
    out["arguments"] = _arguments(raw_args, where, path)
    if "error" in extra and extra["error"] is not None:
        raw_error = extra.pop("error")
        out["error"] = parse_error(raw_error)
        if isinstance(raw_error, dict):
            more = {k: v for k, v in raw_error.items() if k not in ("type", "message")}
            if more:  # `code`, `retryable`: the trace's error holds type and message only
                extra["error"] = more
    else:
        extra.pop("error", None)
    return _finish(_ordered(out, ("seq", "type", "node", "tool", "call_id", "arguments")), extra)


def _error(event: dict[str, Any], where: str, path: Path) -> dict[str, Any]:
    out, extra = _split(event, {"tool": "tool", "stack": "stack"})
    out["error"] = parse_error(extra.pop("error", extra.pop("message", "")))
    return _finish(_ordered(out, ("seq", "type", "node", "error")), extra)


def _simple(known: dict[str, str]) -> Callable[[dict[str, Any], str, Path], dict[str, Any]]:
    def convert(event: dict[str, Any], where: str, path: Path) -> dict[str, Any]:
        out, extra = _split(event, known)
        return _finish(out, extra)

    return convert


def _ordered(out: dict[str, Any], first: tuple[str, ...]) -> dict[str, Any]:
    """Key order for readable YAML: the identifying keys first, the rest as they came."""
    head = {k: out[k] for k in first if k in out}
    return {**head, **{k: v for k, v in out.items() if k not in head}}


def _terminal(final: dict[str, Any] | None) -> dict[str, Any]:
    if final is None:
        return {"status": "unknown", "output": None}
    raw = final.get("status")
    status = STATUS_SYNONYMS.get(str(raw).lower(), raw) if raw is not None else "unknown"
    return {"status": status, "output": final.get("output"), "seq": final["seq"]}


_FINAL = ("seq", "type", "status", "output")


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


_CONVERTERS: dict[str, Callable[[dict[str, Any], str, Path], dict[str, Any]]] = {
    "llm_request": _model_call,
    "tool_call": _tool_call,
    "error": _error,
    "state_change": _simple({"key": "key", "value": "value"}),
    "side_effect": _simple({"kind": "kind", "target": "target", "data": "data"}),
    "handoff": _simple({"from": "from", "to": "to"}),
    "retry": _simple({"of": "of", "attempt": "attempt"}),
}


def check_mcp_servers(raw: Any, path: Path) -> None:
    """`mcpServers: {NAME: {tools: [...]}}`, the shape MCP host configurations use."""
    entries = raw.items() if isinstance(raw, dict) else [("", None)]
    for name, entry in entries:
        tools = entry.get("tools", []) if isinstance(entry, dict) else None
        if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
            raise InputError(
                f"mcpServers{'.' + name if name else ''} must be an object of servers, each "
                "{tools: [tool definitions]} (as tools/list answered)",
                path,
            )


class NativeRun:
    """One native incident file, read once: `events()`, then `run()` (the body without its
    events). `sniffed`: the format was not named, so a file native's sniff does not
    recognise is not this reader's (NotStreamed at `run()`)."""

    def __init__(self, path: Path, sniffed: bool, limit: int | None = None):
        self.path, self.sniffed = path, sniffed
        self._stream = StreamedObject(path, "events", limit)
        self._ids = CallIds()
        self._models: set[str] = set()
        self._first_user: str | None = None
        self._final: dict[str, Any] | None = None
        self._error: InputError | None = None

    def __enter__(self) -> NativeRun:
        self._stream.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stream.__exit__(kind, err, tb)

    @property
    def head(self) -> dict[str, Any]:
        """The top-level keys written before the events (all of them, after `events()`)."""
        return self._stream.fields

    @property
    def sha256(self) -> str:
        """The file's hash, once it has been read to the end."""
        return self._stream.sha256

    def events(self) -> Iterator[dict[str, Any]]:
        """Every event but `final`, in trace form; after the first bad one, none (the rest of
        the file is still read: a syntax error further on is what a whole read reports)."""
        for index, raw in enumerate(self._stream.items()):
            if self._error is not None:
                continue
            try:
                event = event_of(raw, index, self.path)
            except InputError as err:
                self._error = err
                continue
            except SHAPE_ERRORS as err:
                self._error = shape_error(IMPORTER.name, err, self.path)
                continue
            if event is None:
                self._final = raw
                continue
            self._ids.rename(event)
            self._models.update(models_of([event]))
            if self._first_user is None and event["type"] == "model_call":
                self._first_user = first_user_text([event]) or ""
            yield event

    def run(self) -> Imported:
        """The run, its body holding no events (they were yielded); the whole read's errors."""
        data = self._stream.fields
        if self.sniffed and not ("traceId" in data or "schemaVersion" in data):
            raise NotStreamed("not recognised as native: the whole read decides")
        try:
            check_mcp_servers(data.get("mcpServers", {}), self.path)
            if self._error is not None:
                raise self._error
            first = self._first_user or None
            body = body_of(data, [], self._final, self.path, sorted(self._models), first)
        except SHAPE_ERRORS as err:
            raise shape_error(IMPORTER.name, err, self.path) from None
        trace_id, session_id = data.get("traceId"), data.get("sessionId")
        return Imported(
            format=IMPORTER.name,
            body=body,
            trace_id=None if trace_id is None else str(trace_id),
            session_id=None if session_id is None else str(session_id),
        )
