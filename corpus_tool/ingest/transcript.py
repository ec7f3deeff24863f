"""Chat transcripts (OpenAI-style message lists) to events: benchmark logs record runs this way.

Each assistant message is a model call whose request is the conversation before it; each
tool message is the result (or error) of the call it answers, with the arguments the model
gave for that call id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from corpus_tool.ingest.build import model_event, tool_event
from corpus_tool.ingest.chat import message, text_of
from corpus_tool.ingest.coerce import error_text, opt_id, result_value

ModelOf = Callable[[dict[str, Any]], "str | None"]
ErrorOf = Callable[[dict[str, Any]], "dict[str, str] | None"]


def error_prefix(msg: dict[str, Any]) -> dict[str, str] | None:
    """tau-bench's convention: a tool result starting `Error:` is the tool's error."""
    return error_text(msg.get("content"))


def events(
    messages: list[Any],
    model_of: ModelOf,
    error_of: ErrorOf = error_prefix,
    extra_of: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    opening: Sequence[Any] = (),
) -> list[dict[str, Any]]:
    """The events of a transcript, in order; `opening` messages precede it (a fixed greeting)."""
    history: list[dict[str, Any]] = [message(m) for m in opening]
    asked: dict[str | None, dict[str, Any]] = {}
    renamed: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for raw in messages:
        if not isinstance(raw, dict):
            continue
        msg = message(raw)
        more = {"timestamp": raw.get("timestamp"), "extra": extra_of(raw) if extra_of else None}
        if raw.get("requestor") == "user":  # tau2: the simulated user's own tool calls
            pass
        elif msg.get("role") == "assistant":
            calls = [unique_call(call, asked, renamed) for call in msg.get("tool_calls") or []]
            asked.update({call["id"]: call for call in calls})
            out.append(_model(raw, msg, calls, model_of(raw), history, more))
        elif msg.get("role") == "tool":
            call_id = opt_id(raw.get("tool_call_id") or raw.get("id"))
            call = asked.get(renamed.get(call_id or "", call_id))
            out.append(_tool(raw, msg, call, error_of, more))
        history.append(msg)
    return out


def _model(
    raw: dict[str, Any],
    msg: dict[str, Any],
    calls: list[dict[str, Any]],
    model: str | None,
    history: list[dict[str, Any]],
    more: dict[str, Any],
) -> dict[str, Any]:
    """An assistant message: a model call asked the conversation so far."""
    content = text_of(msg.get("content"))
    return model_event(model, list(history), content, calls, usage=raw.get("usage"), **more)


def unique_call(
    call: dict[str, Any], asked: dict[str | None, Any], renamed: dict[str, str]
) -> dict[str, Any]:
    """A call id the model reuses from an earlier turn gets a `~N` suffix.

    Some models recycle ids across turns; the tool message answers the latest request, and
    unique ids keep the request/answer pairing (and the completeness check) exact.
    """
    original = call.get("id")
    if original is None or original not in asked:
        if original is not None:
            renamed[original] = original
        return call
    n = 2
    while f"{original}~{n}" in asked:
        n += 1
    renamed[original] = f"{original}~{n}"
    return {**call, "id": renamed[original]}


def claim_calls(
    event: dict[str, Any], asked: dict[str | None, Any], renamed: dict[str, str]
) -> list[dict[str, Any]]:
    """The tool calls of a model_call event with unique ids (`unique_call`), written back into
    its response and noted in `asked`."""
    calls = [unique_call(c, asked, renamed) for c in event["response"].get("tool_calls") or []]
    if calls:
        event["response"]["tool_calls"] = calls
    asked.update({c["id"]: c for c in calls if c.get("id")})
    return calls


def _tool(
    raw: dict[str, Any],
    msg: dict[str, Any],
    call: dict[str, Any] | None,
    error_of: ErrorOf,
    more: dict[str, Any],
) -> dict[str, Any]:
    call = call or {}
    call_id = call.get("id") or opt_id(raw.get("tool_call_id") or raw.get("id"))
    name = str(raw.get("name") or raw.get("function") or call.get("name") or "unknown_tool")
    err = error_of(raw)
    result = result_value(msg.get("content"))
    return tool_event(name, call_id, call.get("arguments") or {}, result, error=err, **more)
