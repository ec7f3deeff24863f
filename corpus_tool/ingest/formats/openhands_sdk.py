"""OpenHands V1 conversations: what `openhands-sdk` 1.x and OpenHands 1.x write.

Two inputs:
- a persisted conversation directory (`Conversation(..., persistence_dir=...)`):
  `base_state.json` (the agent's settings: the model id is `agent.llm.model`) and `events/`,
  one JSON file per event (`event-NNNNN-<id>.json`), read in file-name order. `corpus add`
  reads such a directory as one incident (`read_conversation`);
- the events alone: a JSON list of events, or the agent server's page `{items: [...]}`.
  V1 events name no model, so such a run is incomplete: refused, or kept as known_unknown
  (its model calls marked `missing: [model]`) with `--allow-incomplete`.

Every event names its class in `kind`:

- `SystemPromptEvent`: the system prompt and the tools offered (the SDK's tool dumps);
- `MessageEvent` from the user: the first is `input.user_message`, later ones
  `input.context.user_turns`; from the agent: a model answer with no tool call;
- `ActionEvent`: the model's tool call; one model_call per distinct `llm_response_id` (its
  text the `thought`, every tool call of that response), placed before its first action;
  each action is a tool_call whose result is the text of the `ObservationEvent` answering
  its `tool_call_id` (`is_error` → the tool's error `ToolError`); an `AgentErrorEvent` for
  the call (the tool raised, or the arguments did not validate) → `AgentError`, a
  `UserRejectObservation` → `UserRejected`;
- `ConversationErrorEvent` is the run's error; other events stay under `extra.other_events`.

The events do not hold the prompts the SDK sent: each request is rebuilt from the events
(system prompt, user messages, the model's answers and tool calls, observations as tool
messages). The run ends with `finish` (succeeded, its message the output), an agent
message (succeeded), or a run error (failed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.body import trace_body
from corpus_tool.ingest.build import error_event, model_event, tool_event
from corpus_tool.ingest.chat import text_of
from corpus_tool.ingest.coerce import loads_maybe, obj, opt_id
from corpus_tool.ingest.imported import Imported
from corpus_tool.io import files
from corpus_tool.model.values import ABSENT

_KINDS = {
    "SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent", "AgentErrorEvent",
    "UserRejectObservation", "ConversationStateUpdateEvent", "ConversationErrorEvent",
    "PauseEvent", "InterruptEvent", "CondensationSummaryEvent", "CondensationRequest",
    "Condensation", "HookExecutionEvent", "SecurityAnalysisEvent", "LLMCompletionLogEvent",
    "TokenEvent", "StreamingDeltaEvent", "ACPToolCallEvent",
}  # fmt: skip
_ANSWERS = {"ObservationEvent", "AgentErrorEvent", "UserRejectObservation"}
NO_MODEL_HINT = (
    "OpenHands SDK events name no model: add the conversation directory instead "
    "(its base_state.json holds the model id)"
)
"""How to complete a run read from the events alone (IncompleteError's `hint`)."""
STATE_WITHOUT_MODEL = "the conversation's base_state.json names no model id (agent.llm.model)"


def is_conversation(path: Path) -> bool:
    """A persisted conversation directory: `base_state.json` beside `events/`."""
    return path.is_dir() and (path / "base_state.json").is_file() and (path / "events").is_dir()


def read_conversation(path: Path) -> dict[str, Any]:
    """`{base_state, events}` of a conversation directory, the events in file-name order
    (`event-NNNNN-...`: the order the SDK wrote them); a file that is not JSON is refused."""
    budget = _Budget(path, files.input_limit())
    state = budget.parse(path / "base_state.json")
    names = sorted(p for p in (path / "events").glob("*.json") if p.is_file())
    if not names:
        raise InputError("the conversation's events/ holds no event files", path)
    return {"base_state": state, "events": [budget.parse(f) for f in names]}


class _Budget:
    """The conversation's files are one incident: held together to one incident's size limit
    (each under it, thousands of event files could still fill the memory)."""

    def __init__(self, conversation: Path, limit: int) -> None:
        self.conversation, self.limit, self.left = conversation, limit, limit

    def parse(self, file: Path) -> Any:
        raw = files.read_bytes(file)
        self.left -= len(raw)
        if self.left < 0:
            raise InputError(
                f"the conversation's files are over the {self.limit:,}-byte limit together; "
                "cut the conversation, or raise CORPUS_MAX_INPUT_BYTES",
                self.conversation,
            )
        return files.parse_json(raw, file)


class OpenHandsSdkImporter:
    """OpenHands V1 conversations: a persisted conversation directory, or its events."""

    name = "openhands-sdk"

    def sniff(self, data: Any, path: Path) -> bool:
        head = [e for e in _items(data)[:3] if isinstance(e, dict)]
        return bool(head) and all(e.get("kind") in _KINDS and "id" in e for e in head)

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError(
                "not OpenHands SDK events: expected a conversation directory "
                "(base_state.json, events/), [{id, kind, ...}] or {items: [...]}",
                path,
            )
        state = _state(data)
        model = opt_id(obj(obj(state.get("agent")).get("llm")).get("model"))
        stream = [e for e in _items(data) if isinstance(e, dict)]
        body = _body(stream, model)
        hint = None if model else NO_MODEL_HINT if not state else STATE_WITHOUT_MODEL
        label = path.name if is_conversation(path) else path.stem
        return [Imported(self.name, body, trace_id=opt_id(state.get("id")), label=label,
                         hint=hint)]  # fmt: skip


IMPORTER = OpenHandsSdkImporter()


def _state(data: Any) -> dict[str, Any]:
    """The conversation's base_state (empty for events alone)."""
    state = data.get("base_state") if isinstance(data, dict) else None
    return obj(state)


def _items(data: Any) -> list[Any]:
    """The events: of a conversation `{base_state, events}`, a bare list, or the agent
    server's page `{items: [...]}`."""
    if isinstance(data, dict):
        data = data.get("events") if isinstance(data.get("base_state"), dict) else data.get("items")
    return data if isinstance(data, list) else []


def _body(stream: list[dict[str, Any]], model: str | None) -> dict[str, Any]:
    reader = _OpenHandsSdkReader(stream, model)
    reader.read()
    users = reader.user_turns
    return trace_body(
        reader.events,
        started_at=next((e.get("timestamp") for e in stream if e.get("timestamp")), None),
        agent={"name": "openhands-sdk"},
        user_message=users[0] if users else None,
        terminal=reader.terminal(),
        context={"user_turns": users[1:]} if users[1:] else None,
        extra={"other_events": reader.others},
        offered=reader.tools,
    )


class _OpenHandsSdkReader:
    """Walks the events once, keeping the conversation the model would have been sent."""

    def __init__(self, stream: list[dict[str, Any]], model: str | None) -> None:
        self.stream, self.model = stream, model
        self.events: list[dict[str, Any]] = []
        self.others: list[dict[str, Any]] = []
        self.user_turns: list[str] = []
        self.history: list[dict[str, Any]] = []
        self.tools: list[Any] | None = None
        self.answered: set[str] = set()
        self.answers: dict[str, dict[str, Any]] = {}
        self.responses: dict[str, list[dict[str, Any]]] = {}  # the actions of each response
        for e in stream:
            if e.get("kind") in _ANSWERS and e.get("tool_call_id") is not None:
                self.answers.setdefault(str(e["tool_call_id"]), e)
            key = _response_key(e)
            if key is not None:
                self.responses.setdefault(key, []).append(e)
        self.last: dict[str, Any] = {}

    def read(self) -> None:
        for event in self.stream:
            kind = event.get("kind")
            if kind == "SystemPromptEvent":
                self._system(event)
            elif kind == "MessageEvent":
                self._message(event)
            elif kind == "ActionEvent":
                self._model_once(event)
                self._tool(event)
            elif kind == "ConversationErrorEvent":
                self._run_error(event)
            elif kind not in _ANSWERS or str(event.get("tool_call_id")) not in self.answers:
                self.others.append(event)
            elif self.answers[str(event.get("tool_call_id"))] is not event:
                self.others.append(event)  # a second answer to one call: kept, not read

    def _system(self, event: dict[str, Any]) -> None:
        prompt = text_of(event.get("system_prompt"))
        self.history.append({"role": "system", "content": prompt})
        self.tools = event.get("tools") if isinstance(event.get("tools"), list) else None

    def _message(self, event: dict[str, Any]) -> None:
        text = text_of(obj(event.get("llm_message")).get("content")) or ""
        if event.get("source") == "user":
            self.user_turns.append(text)
            self.history.append({"role": "user", "content": text})
            return
        self.events.append(
            model_event(self.model, list(self.history), text, [], tools=self.tools,
                        timestamp=event.get("timestamp"))
        )  # fmt: skip
        self.history.append({"role": "assistant", "content": text})
        self.last = event

    def _model_once(self, event: dict[str, Any]) -> None:
        """The model call behind an action, once per response (one answer, many actions)."""
        key = str(event.get("llm_response_id") or event.get("tool_call_id"))
        if key in self.answered:
            return
        self.answered.add(key)
        calls = [_call(e) for e in self.responses[key]]
        said = text_of(event.get("thought")) or None
        self.events.append(
            model_event(self.model, list(self.history), said, calls, tools=self.tools,
                        timestamp=event.get("timestamp"), extra={"response_id": key})
        )  # fmt: skip
        self.history.append({"role": "assistant", "content": said, "tool_calls": calls})

    def _tool(self, event: dict[str, Any]) -> None:
        """A tool call and the event answering it."""
        call = _call(event)
        seen = self.answers.get(str(call["id"]))
        result, err = _outcome(seen)
        more = {"action_id": event.get("id"), "answer_id": (seen or {}).get("id")}
        self.events.append(
            tool_event(call["name"], call["id"], call["arguments"], result, error=err,
                       timestamp=event.get("timestamp"), extra=more)
        )  # fmt: skip
        if seen is not None:
            shown = result if err is None else err["message"]
            self.history.append(
                {"role": "tool", "tool_call_id": call["id"], "name": call["name"], "content": shown}
            )
        self.last = event

    def _run_error(self, event: dict[str, Any]) -> None:
        kind = str(event.get("code") or "ConversationError")
        text = str(event.get("detail") or "conversation error")
        self.events.append(
            error_event({"type": kind, "message": text}, timestamp=event.get("timestamp"))
        )

    def terminal(self) -> dict[str, Any]:
        """A run error → failed; `finish` or a last agent message → succeeded; else unknown."""
        if any(e["type"] == "error" for e in self.events):
            return {"status": "failed", "output": None}
        last = self.last
        if last.get("kind") == "MessageEvent":
            return {
                "status": "succeeded",
                "output": text_of(obj(last.get("llm_message")).get("content")),
            }
        action = obj(last.get("action"))
        if last.get("tool_name") == "finish" or action.get("kind") == "FinishAction":
            return {"status": "succeeded", "output": action.get("message")}
        return {"status": "unknown", "output": None}


def _response_key(event: dict[str, Any]) -> str | None:
    if event.get("kind") != "ActionEvent":
        return None
    return str(event.get("llm_response_id") or event.get("tool_call_id"))


def _call(action: dict[str, Any]) -> dict[str, Any]:
    """`{id, name, arguments}` of an action: the model's own call, as the model gave it."""
    call = obj(action.get("tool_call"))
    args = loads_maybe(call.get("arguments"))
    return {
        "id": opt_id(call.get("id") or action.get("tool_call_id")),
        "name": str(call.get("name") or action.get("tool_name")),
        "arguments": args if isinstance(args, dict) else {},
    }


def _outcome(seen: dict[str, Any] | None) -> tuple[Any, dict[str, str] | None]:
    """(result, error) of a tool call from the event answering it."""
    if seen is None:
        return ABSENT, None
    kind = seen.get("kind")
    if kind == "AgentErrorEvent":
        return ABSENT, {"type": "AgentError", "message": str(seen.get("error") or "")}
    if kind == "UserRejectObservation":
        reason = str(seen.get("rejection_reason") or "rejected by the user")
        return ABSENT, {"type": "UserRejected", "message": reason}
    observation = obj(seen.get("observation"))
    text = text_of(observation.get("content")) or ""
    if observation.get("is_error"):
        return ABSENT, {"type": "ToolError", "message": text}
    return text, None
