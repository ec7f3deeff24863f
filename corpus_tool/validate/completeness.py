"""Is a trace complete enough to be a regression case? Every problem, never just the first.

The rules are the ones the README lists under `corpus add` (Completeness); each problem names
its rule (`completeness.seq`, `.tool_result`, `.tool_link`, `.timestamp`, `.version`,
`.truncated`, `.answer`), which validate prints.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from corpus_tool.io.files import canonical_json
from corpus_tool.model.values import parse_time

JsonPath = tuple[str | int, ...]
"""A place in a trace body: keys and list indexes from the top."""


@dataclass(frozen=True)
class Problem:
    """One completeness problem at a JSON path of the trace body."""

    where: JsonPath
    rule: str
    message: str


def problems(body: dict[str, Any]) -> list[Problem]:
    """Every completeness problem of a trace body."""
    events = [e for e in body.get("events") or [] if isinstance(e, dict)]
    found = [
        *_seq_order(events),
        *_results(events),
        *_call_links(events),
        *_timestamps(body, events),
        *_versions(body, events),
        *_truncated(events),
        *_consistency(events),
        *_wrapped_results(events),
        *_missing_marks(body, events),
        *_answers(events),
    ]
    return found


def mark_missing(body: dict[str, Any]) -> dict[str, Any]:
    """The body with `missing: [model]` on each model call that names no model id, and
    `recorded.missing: [started_at]` when the source held no start time.

    What `corpus add --allow-incomplete` stores: the schema requires a model id unless the
    event says the source did not hold one; the completeness finding stays, and only a
    known_unknown case (whose `incomplete` list names it) is accepted with it.
    """
    events = [
        {**e, "missing": sorted({*(e.get("missing") or ()), "model"})}
        if e.get("type") == "model_call" and not e.get("model")
        else e
        for e in body.get("events") or []
    ]
    return {**body, "recorded": _mark_start(body.get("recorded") or {}), "events": events}


def _mark_start(recorded: dict[str, Any]) -> dict[str, Any]:
    """`missing: [started_at]` in place of a start time the source did not hold (an MCP log,
    a SWE-agent trajectory)."""
    if recorded.get("started_at"):
        return recorded
    kept = {k: v for k, v in recorded.items() if k != "started_at"}
    return {**kept, "missing": ["started_at"]}


def _seq_order(events: list[dict[str, Any]]) -> Iterator[Problem]:
    seen: set[Any] = set()
    last = None
    for i, event in enumerate(events):
        seq = event.get("seq")
        if seq in seen:
            yield Problem(("events", i, "seq"), "completeness.seq", f"seq {seq} appears twice")
        elif last is not None and isinstance(seq, int) and seq < last:
            yield Problem(
                ("events", i, "seq"),
                "completeness.seq",
                f"seq {seq} comes after {last}: not increasing",
            )
        seen.add(seq)
        last = seq if isinstance(seq, int) else last


def _results(events: list[dict[str, Any]]) -> Iterator[Problem]:
    for i, event in enumerate(events):
        if event.get("type") != "tool_call":
            continue
        has_result, has_error = "result" in event, "error" in event
        name = event.get("tool")
        if not has_result and not has_error:
            yield Problem(
                ("events", i),
                "completeness.tool_result",
                f"tool_call {name} (seq {event.get('seq')}) has neither result nor error",
            )
        elif has_result and has_error:
            yield Problem(
                ("events", i),
                "completeness.tool_result",
                f"tool_call {name} (seq {event.get('seq')}) has both result and error",
            )


Indexed = list[tuple[int, dict[str, Any]]]
"""(index in the event list, the event or requested call)."""


def _call_links(events: list[dict[str, Any]]) -> Iterator[Problem]:
    """Model-requested calls and tool_call events pair up: by call id, else by name in order."""
    requests = [
        (i, c)
        for i, e in enumerate(events)
        if e.get("type") == "model_call"
        for c in (e.get("response") or {}).get("tool_calls") or []
        if isinstance(c, dict)
    ]
    calls = [(i, e) for i, e in enumerate(events) if e.get("type") == "tool_call"]
    open_calls = {i for i, _ in calls}
    for i, request in _link_by_id(requests, calls, open_calls):
        j = _answer_by_name(i, request, calls, open_calls)
        if j is None:
            ref = f" (call id {request['id']})" if request.get("id") else ""
            yield Problem(
                ("events", i, "response", "tool_calls"),
                "completeness.tool_link",
                f"model asked for {request.get('name')}{ref} at seq {events[i].get('seq')} "
                "but no tool_call event answers it",
            )
        else:
            open_calls.discard(j)
    requested_names = {r.get("name") for _, r in requests}
    for j, event in calls:
        if j in open_calls and (event.get("call_id") or event.get("tool") in requested_names):
            ref = f" call id {event['call_id']}" if event.get("call_id") else ""
            yield Problem(
                ("events", j),
                "completeness.tool_link",
                f"tool_call {event.get('tool')}{ref} at seq {event.get('seq')} "
                "answers no model request",
            )


def _link_by_id(requests: Indexed, calls: Indexed, open_calls: set[int]) -> Indexed:
    """Close the tool calls answering a request by call id; the requests left unanswered."""
    by_id: dict[Any, list[int]] = {}
    for i, event in calls:
        if event.get("call_id"):
            by_id.setdefault(event["call_id"], []).append(i)
    unmatched = []
    for i, request in requests:
        # retries of one requested call carry its call id: the request answers them all
        answers = (
            [j for j in by_id.get(request.get("id"), []) if j in open_calls]
            if request.get("id")
            else []
        )
        open_calls.difference_update(answers)
        if not answers:
            unmatched.append((i, request))
    return unmatched


def _answer_by_name(
    i: int, request: dict[str, Any], calls: Indexed, open_calls: set[int]
) -> int | None:
    """The first open, id-less tool call of the requested name after the request."""
    return next(
        (
            j
            for j, e in calls
            if j in open_calls
            and j > i
            and not e.get("call_id")
            and e.get("tool") == request.get("name")
        ),
        None,
    )


def _timestamps(body: dict[str, Any], events: list[dict[str, Any]]) -> Iterator[Problem]:
    started = (body.get("recorded") or {}).get("started_at")
    if started is not None and parse_time(started) is None:
        yield Problem(
            ("recorded", "started_at"),
            "completeness.timestamp",
            f"start time {started!r} is not an ISO 8601 timestamp",
        )
    last: tuple[datetime, Any] | None = None
    for i, event in enumerate(events):
        raw = event.get("timestamp")
        if raw is None:
            continue
        when = parse_time(raw)
        if when is None:
            yield Problem(
                ("events", i, "timestamp"),
                "completeness.timestamp",
                f"timestamp {raw!r} at seq {event.get('seq')} is not ISO 8601",
            )
            continue
        if last is not None and _comparable(last[0], when) and when < last[0]:
            yield Problem(
                ("events", i, "timestamp"),
                "completeness.timestamp",
                f"timestamp at seq {event.get('seq')} goes back before seq {last[1]}",
            )
        last = (when, event.get("seq"))


def _comparable(a: datetime, b: datetime) -> bool:
    return (a.tzinfo is None) == (b.tzinfo is None)


def _no_model(model: Any) -> bool:
    """No model id, or the placeholder a recorder writes when it did not know one."""
    return not model or str(model).strip().lower() == "unknown"


def _versions(body: dict[str, Any], events: list[dict[str, Any]]) -> Iterator[Problem]:
    recorded = body.get("recorded") or {}
    if not recorded.get("started_at"):
        yield Problem(("recorded", "started_at"), "completeness.version", "start time is missing")
    agent = recorded.get("agent") or {}
    if not agent.get("name") or not (agent.get("version") or agent.get("config_hash")):
        yield Problem(
            ("recorded", "agent"),
            "completeness.version",
            "agent name and version (or config hash) are required",
        )
    for i, event in enumerate(events):
        if event.get("type") == "model_call" and _no_model(event.get("model")):
            yield Problem(
                ("events", i),
                "completeness.version",
                f"model call at seq {event.get('seq')} names no model id"
                + (" (`unknown` is not one)" if event.get("model") else ""),
            )


def _truncated(events: list[dict[str, Any]]) -> Iterator[Problem]:
    for i, event in enumerate(events):
        if event.get("truncated"):
            yield Problem(
                ("events", i, "truncated"),
                "completeness.truncated",
                f"event at seq {event.get('seq')} was truncated at capture",
            )


def _requested(events: list[dict[str, Any]]) -> dict[Any, tuple[int, dict[str, Any]]]:
    """The model's requested calls by call id (the first request of each id)."""
    out: dict[Any, tuple[int, dict[str, Any]]] = {}
    for i, event in enumerate(events):
        if event.get("type") != "model_call":
            continue
        for call in (event.get("response") or {}).get("tool_calls") or []:
            if isinstance(call, dict) and call.get("id"):
                out.setdefault(call["id"], (i, call))
    return out


def _consistency(events: list[dict[str, Any]]) -> Iterator[Problem]:
    """A tool_call ran what the model asked for under its call id: same tool, and every
    argument the model gave, equal as canonical JSON (key order does not matter).

    A case that contradicts itself (an importer that kept a wrapper instead of the arguments)
    can only diverge on replay.
    """
    requested = _requested(events)
    for i, event in enumerate(events):
        if event.get("type") != "tool_call" or event.get("call_id") not in requested:
            continue
        j, call = requested[event["call_id"]]
        where = f"under call id {event['call_id']} at seq {events[j].get('seq')}"
        if call.get("name") != event.get("tool"):
            yield Problem(
                ("events", i, "tool"),
                "completeness.consistency",
                f"tool_call at seq {event.get('seq')} ran {event.get('tool')} but the model "
                f"asked for {call.get('name')} {where}",
            )
        elif _contradicts(call.get("arguments"), event.get("arguments")):
            yield Problem(
                ("events", i, "arguments"),
                "completeness.consistency",
                f"tool_call {event.get('tool')} at seq {event.get('seq')} has arguments "
                f"{_canonical(event.get('arguments'))} but the model asked for "
                f"{_canonical(call.get('arguments'))} {where}",
            )


def _contradicts(asked: Any, ran: Any) -> bool:
    """Whether the arguments that ran differ from the model's on any argument the model gave.

    An agent may add arguments of its own (an idempotency key, a tenant id): those contradict
    nothing. A missing, renamed or changed argument does.
    """
    asked, ran = asked or {}, ran or {}
    if not isinstance(asked, dict) or not isinstance(ran, dict):
        return _canonical(asked) != _canonical(ran)
    return any(k not in ran or _canonical(v) != _canonical(ran[k]) for k, v in asked.items())


def _canonical(value: Any) -> str:
    return canonical_json(value if value is not None else {})


def _wrapped_results(events: list[dict[str, Any]]) -> Iterator[Problem]:
    for i, event in enumerate(events):
        if event.get("type") == "tool_call" and _wrapper(event.get("result")):
            yield Problem(
                ("events", i, "result"),
                "completeness.wrapped_result",
                f"tool_call {event.get('tool')} at seq {event.get('seq')} holds a tracing "
                "library's message object as its result, not what the tool returned",
            )


def _wrapper(value: Any) -> bool:
    """LangChain's ToolMessage as its tracers serialize it: `lc` constructor or `{type, data}`."""
    if not isinstance(value, dict):
        return False
    if value.get("lc") and isinstance(value.get("kwargs"), dict):
        return str((value.get("id") or [""])[-1]).endswith("Message")
    data = value.get("data")
    return (value.get("type") == "tool" and isinstance(data, dict) and "tool_call_id" in data) or (
        value.get("type") == "tool" and "tool_call_id" in value and "content" in value
    )


def _missing_marks(body: dict[str, Any], events: list[dict[str, Any]]) -> Iterator[Problem]:
    """`missing` says the source lacked a field; an event that has the field contradicts it."""
    recorded = body.get("recorded") or {}
    if "started_at" in (recorded.get("missing") or []) and recorded.get("started_at"):
        yield Problem(
            ("recorded", "missing"),
            "completeness.missing",
            "recorded lists started_at as missing but has one",
        )
    for i, event in enumerate(events):
        for name in event.get("missing") or []:
            held = (event.get("request") or {}) if name == "messages" else event
            if held.get(name):
                yield Problem(
                    ("events", i, "missing"),
                    "completeness.missing",
                    f"event at seq {event.get('seq')} lists {name} as missing but has one",
                )
            elif name == "messages":
                yield Problem(
                    ("events", i, "request"),
                    "completeness.request",
                    f"model call at seq {event.get('seq')} holds no request messages (the "
                    "source did not export them): replay cannot check what the agent sends",
                )


def _refused(event: dict[str, Any]) -> bool:
    """A model call the provider refused: its answer is the recorded error, `extra.error` with
    an HTTP status 400-599 (what `replay.provider.recorded_error` replays)."""
    error = (event.get("extra") or {}).get("error")
    status = error.get("status") if isinstance(error, dict) else None
    return isinstance(status, int) and not isinstance(status, bool) and 400 <= status <= 599


# Finish reasons that say nothing about an empty answer: a model that ended its turn normally
# or to call tools, or a producer that did not know (Inspect's `unknown`). With no text at all
# (`content` absent or null, not an empty string) and no tool call, the answer was lost on the
# way: an importer reading the wrong field keeps the finish reason. Other reasons (`length`,
# `content_filter`, `max_tokens`, `safety`, ...) say why an answer is empty.
_EXPLAINS_NOTHING = frozenset(
    {"stop", "end_turn", "stop_sequence", "tool_calls", "tool_use", "function_call",
     "tool-calls", "completed", "unknown", "finish_reason_unspecified"}
)  # fmt: skip


def _explained(response: dict[str, Any]) -> bool:
    """Whether a response without text or tool call records why: an empty string the model
    gave, or a finish reason other than a normal stop (`length`, `content_filter`, ...)."""
    reason = response.get("finish_reason")
    if not reason:
        return False
    return isinstance(response.get("content"), str) or str(reason).lower() not in _EXPLAINS_NOTHING


def _answers(events: list[dict[str, Any]]) -> Iterator[Problem]:
    """A model call answers something: text, a tool call, or at least a finish reason saying
    why the answer was empty. No answer at all is an importer that missed it (or a source that
    did not hold it): replay would hand the agent an answer that never happened."""
    for i, event in enumerate(events):
        if event.get("type") != "model_call" or "messages" in (event.get("missing") or ()):
            continue
        response = event.get("response") or {}
        content = response.get("content")
        if response.get("tool_calls") or _explained(response) or _refused(event):
            continue
        if content is None or (isinstance(content, str) and not content.strip()):
            yield Problem(
                ("events", i, "response"),
                "completeness.answer",
                f"model call at seq {event.get('seq')} holds no answer (no text, no tool call)",
            )


def summary(event: dict[str, Any]) -> dict[str, Any]:
    """What problems() (and the drafted expectations: ids, tools, errors) read of one event,
    and no more: a streamed run keeps this of each event, not the event. problems() of a body
    whose events are summaries finds what it finds in the whole body."""
    out = {k: event[k] for k in _SUMMARY_KEYS if k in event}
    if "result" in event:
        out["result"] = event["result"] if _wrapper(event["result"]) else None
    for name in event.get("missing") or ():  # each field `missing` names is looked for
        if name == "messages":
            out["request"] = {"messages": (event.get("request") or {}).get("messages")}
        elif isinstance(name, str) and name in event:
            out[name] = event[name]
    error = (event.get("extra") or {}).get("error")
    if error is not None:
        out["extra"] = {"error": error}
    response = event.get("response")
    if isinstance(response, dict):
        out["response"] = _response_summary(response)
    return out


_SUMMARY_KEYS = (
    "seq", "type", "tool", "call_id", "arguments", "error", "timestamp", "truncated", "missing",
    "model",
)  # fmt: skip


def _response_summary(response: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: response[k] for k in ("tool_calls", "finish_reason") if k in response}
    if "content" in response:
        content = response["content"]
        if isinstance(content, str):  # only whether it is blank is read
            content = "" if not content.strip() else "text"
        elif content is not None:
            content = True
        out["content"] = content
    return out
