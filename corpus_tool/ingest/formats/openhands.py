"""OpenHands event streams: actions and the observations they caused, in one list.

An event is `{id, timestamp, source, action, args, ...}` or `{id, timestamp, source,
observation, content, extras, cause}`; `cause` is the id of the action an observation answers.
An agent action the model chose carries `tool_call_metadata`: the function name, the tool call
id and the model's whole `model_response` (model id, answer text, every tool call, usage).

- one model_call per distinct `model_response.id`, placed before its first action; an agent
  `message` without metadata is a model answer with no tool call (its model id is the one every
  other answer of the run names, marked `extra.model_from`);
- each tool-calling action is a tool_call: the arguments the model gave, the result the
  observation's `content` (an `error` observation is the tool's error). `finish` and `reject`
  end the run and cause no observation: their tool_call's result is null;
- the stream does not hold the prompts OpenHands sent: each request is rebuilt from the
  stream (the `system` action's prompt and tools when present, user messages, the model's
  earlier answers and tool calls, observations as tool messages);
- user messages after the first are the later turns of the conversation:
  `input.context.user_turns`, so an agent under replay can send them;
- `agent_state_changed` to `error` is the run's error; other events stay under
  `extra.other_events`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.body import trace_body
from corpus_tool.ingest.build import error_event, model_event, tool_event
from corpus_tool.ingest.chat import text_of, tool_calls
from corpus_tool.ingest.coerce import obj, opt_id
from corpus_tool.ingest.imported import Imported
from corpus_tool.model.values import ABSENT, parse_time

_ENDING = {"finish": "succeeded", "reject": "rejected"}


class OpenHandsImporter:
    """OpenHands (V0) event-stream trajectories."""

    name = "openhands"

    def sniff(self, data: Any, path: Path) -> bool:
        items = _items(data)
        head = [e for e in items[:3] if isinstance(e, dict)]
        return bool(head) and all(
            "source" in e and ("action" in e or "observation" in e) for e in head
        )

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError("not an OpenHands event stream: expected [{id, source, action}]", path)
        stream = [e for e in _items(data) if isinstance(e, dict)]
        reader = _OpenHandsReader(stream)
        reader.read()
        system = next((e for e in stream if e.get("action") == "system"), {})
        args = obj(system.get("args"))
        agent = {
            "name": args.get("agent_class") or "openhands",
            "version": args.get("openhands_version"),
        }
        users = reader.user_turns
        body = trace_body(
            reader.events,
            started_at=next((e.get("timestamp") for e in stream if e.get("timestamp")), None),
            agent=agent,
            user_message=users[0] if users else None,
            terminal=reader.terminal(),
            context={"user_turns": users[1:]} if users[1:] else None,
            extra={"other_events": reader.others},
            offered=args.get("tools") if isinstance(args.get("tools"), list) else None,
        )
        return [Imported(self.name, body, label=path.stem)]


IMPORTER = OpenHandsImporter()


def _items(data: Any) -> list[Any]:
    """A bare event list, or the REST API's `{trajectory: [...]}`."""
    if isinstance(data, dict):
        data = data.get("trajectory", data.get("events"))
    return data if isinstance(data, list) else []


class _OpenHandsReader:
    """Walks the stream once, keeping the conversation the model would have been sent."""

    def __init__(self, stream: list[dict[str, Any]]) -> None:
        self.stream = stream
        self.events: list[dict[str, Any]] = []
        self.others: list[dict[str, Any]] = []
        self.user_turns: list[str] = []
        self.history: list[dict[str, Any]] = []
        self.tools: list[Any] | None = None
        self.asked: dict[str, dict[str, Any]] = {}
        self.answered: set[str] = set()
        self.by_id = {_key(e.get("id")): e for e in stream}
        self.observed: dict[str | None, dict[str, Any]] = {}
        for e in stream:
            if "observation" in e:
                self.observed.setdefault(_key(e.get("cause")), e)
        self.last: dict[str, Any] = {}
        self.models = {m for e in stream if (m := _response(e).get("model")) and isinstance(m, str)}

    def read(self) -> None:
        for event in self.stream:
            if event.get("action") == "system":
                self._system(event)
            elif "action" in event:
                self._action(event)
            elif not self._is_answer(event):
                self._observation(event)

    def _system(self, event: dict[str, Any]) -> None:
        args = obj(event.get("args"))
        self.history.append({"role": "system", "content": args.get("content")})
        self.tools = args.get("tools") if isinstance(args.get("tools"), list) else None

    def _action(self, event: dict[str, Any]) -> None:
        meta = obj(event.get("tool_call_metadata"))
        if event.get("source") == "user" and event.get("action") == "message":
            text = str(obj(event.get("args")).get("content", event.get("message") or ""))
            self.user_turns.append(text)
            self.history.append({"role": "user", "content": text})
        elif meta:
            self._model_once(event, meta)
            self._tool(event, meta)
        elif event.get("source") == "agent" and event.get("action") == "message":
            self._plain_answer(event)
        else:
            self.others.append(event)
        if event.get("source") == "agent":
            self.last = event

    def _model_once(self, event: dict[str, Any], meta: dict[str, Any]) -> None:
        """The model call behind an action, once per response (one answer, many actions)."""
        response = obj(meta.get("model_response"))
        key = str(response.get("id") or meta.get("tool_call_id"))
        if key in self.answered:
            return
        self.answered.add(key)
        choice = obj((response.get("choices") or [{}])[0])
        msg = obj(choice.get("message"))
        calls = tool_calls(msg.get("tool_calls"))
        self.asked.update({str(c["id"]): c for c in calls if c.get("id")})
        self.events.append(
            model_event(
                response.get("model"), list(self.history), text_of(msg.get("content")), calls,
                tools=self.tools, finish_reason=choice.get("finish_reason"),
                usage=response.get("usage"), timestamp=event.get("timestamp"),
                extra={"response_id": response.get("id")},
            )
        )  # fmt: skip
        said: dict[str, Any] = {"role": "assistant", "content": text_of(msg.get("content"))}
        self.history.append({**said, "tool_calls": calls} if calls else said)

    def _tool(self, event: dict[str, Any], meta: dict[str, Any]) -> None:
        """A tool-calling action and the observation it caused."""
        call_id = opt_id(meta.get("tool_call_id"))
        name = str(meta.get("function_name") or event.get("action"))
        asked = self.asked.get(call_id or "", {})
        seen = self.observed.get(_key(event.get("id")))
        result, err, more = _outcome(event, seen)
        self.events.append(
            tool_event(
                name, call_id, asked.get("arguments") or {}, result, error=err,
                timestamp=event.get("timestamp"), duration_ms=_took(event, seen), extra=more,
            )
        )  # fmt: skip
        if seen is not None:
            shown = seen.get("content")
            self.history.append(
                {"role": "tool", "tool_call_id": call_id, "name": name, "content": shown}
            )

    def _plain_answer(self, event: dict[str, Any]) -> None:
        """An agent message without metadata: the model answered in text, no tool call."""
        text = str(obj(event.get("args")).get("content", event.get("message") or ""))
        model = next(iter(self.models)) if len(self.models) == 1 else None
        self.events.append(
            model_event(
                model, list(self.history), text, [], tools=self.tools,
                timestamp=event.get("timestamp"),
                extra={"model_from": "the run's other model answers"} if model else None,
            )
        )  # fmt: skip
        self.history.append({"role": "assistant", "content": text})

    def _is_answer(self, event: dict[str, Any]) -> bool:
        """An observation some tool-calling action caused (read with that action)."""
        cause = self.by_id.get(_key(event.get("cause"))) or {}
        return "observation" in event and bool(cause.get("tool_call_metadata"))

    def _observation(self, event: dict[str, Any]) -> None:
        extras = obj(event.get("extras"))
        if (
            event.get("observation") == "agent_state_changed"
            and extras.get("agent_state") == "error"
        ):
            reason = str(extras.get("reason") or event.get("content") or "agent error")
            self.events.append(
                error_event(
                    {"type": "AgentError", "message": reason}, timestamp=event.get("timestamp")
                )
            )
        elif event.get("observation") == "error":
            text = str(event.get("content") or "")
            self.events.append(
                error_event(
                    {"type": "ErrorObservation", "message": text}, timestamp=event.get("timestamp")
                )
            )
        else:
            self.others.append(event)

    def terminal(self) -> dict[str, Any]:
        """finish → succeeded, reject → rejected, a run error → failed; else the agent's last
        message answered the user (succeeded), or the stream stops mid-run (unknown)."""
        if any(e["type"] == "error" for e in self.events):
            return {"status": "failed", "output": None}
        last = self.last
        action = str(last.get("action"))
        if action in _ENDING:
            args = obj(last.get("args"))
            return {
                "status": _ENDING[action],
                "output": args.get("final_thought") or last.get("message"),
            }
        if action == "message":
            return {"status": "succeeded", "output": last.get("message")}
        return {"status": "unknown", "output": None}


def _key(value: Any) -> str | None:
    """Event ids are integers in files and strings in some exports."""
    return None if value is None else str(value)


def _response(event: dict[str, Any]) -> dict[str, Any]:
    return obj(obj(event.get("tool_call_metadata")).get("model_response"))


def _outcome(
    action: dict[str, Any], seen: dict[str, Any] | None
) -> tuple[Any, dict[str, str] | None, dict[str, Any]]:
    """(result, error, extra) of a tool-calling action."""
    more: dict[str, Any] = {"action": action.get("action"), "action_id": action.get("id")}
    if seen is None:
        ends = action.get("action") in _ENDING  # finish/reject: no observation, by design
        return (None if ends else ABSENT), None, more
    more.update(observation=seen.get("observation"), observation_id=seen.get("id"))
    if seen.get("extras"):
        more["extras"] = seen["extras"]
    if seen.get("observation") == "error":
        return ABSENT, {"type": "ToolError", "message": str(seen.get("content") or "")}, more
    return seen.get("content"), None, more


def _took(action: dict[str, Any], seen: dict[str, Any] | None) -> float | None:
    start = parse_time(action.get("timestamp"))
    end = parse_time((seen or {}).get("timestamp"))
    if start is None or end is None or (start.tzinfo is None) != (end.tzinfo is None):
        return None
    return round((end - start).total_seconds() * 1000, 3)
