"""A model trace completed by a tools-only trace of the same run (`corpus add --tools-log`).

A host that logs its model calls but not its tools (an MCP client whose tool traffic goes to
an MCP server) leaves the model's tool requests unanswered; the server's JSON-RPC log holds
the answers but not the model's call ids. A logged call answers the earliest unanswered
request of the same tool with the same arguments (canonical JSON); it takes that request's
call id and goes after the events of the model call that asked for it. A logged call that
the trace already holds (same tool and arguments, answered) is the same call and is not
added twice; one that matches no request refuses the pair. Events are renumbered 1..n.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.body import with_seq
from corpus_tool.io.files import canonical_json

Request = tuple[int, dict[str, Any]]
"""(index of the model_call in the event list, the requested call)."""


def pair(model: dict[str, Any], tools: dict[str, Any], log: Path) -> dict[str, Any]:
    """The model trace's body with the logged tool calls answering its requests."""
    events = copy.deepcopy(model["events"])
    open_requests = _unanswered(events)
    known = [e for e in events if e["type"] == "tool_call"]
    after: dict[int, list[dict[str, Any]]] = {}
    for logged in (e for e in tools["events"] if e["type"] == "tool_call"):
        found = next((r for r in open_requests if _same(r[1], logged)), None)
        if found is not None:
            open_requests.remove(found)
            after.setdefault(found[0], []).append(_answer(found[1], logged))
        elif not _drop_known(known, logged):
            raise InputError(_unmatched(logged), log)
    body = {**model, "events": with_seq(_placed(events, after))}
    if not body["recorded"].get("started_at") and tools["recorded"].get("started_at"):
        body["recorded"] = {**body["recorded"], "started_at": tools["recorded"]["started_at"]}
    return body


def _unanswered(events: list[dict[str, Any]]) -> list[Request]:
    answered = {e.get("call_id") for e in events if e["type"] == "tool_call" and e.get("call_id")}
    return [
        (i, call)
        for i, e in enumerate(events)
        if e["type"] == "model_call"
        for call in e["response"].get("tool_calls") or []
        if call.get("id") not in answered or call.get("id") is None
    ]


def _same(request: dict[str, Any], logged: dict[str, Any]) -> bool:
    return request.get("name") == logged["tool"] and canonical_json(
        request.get("arguments") or {}
    ) == canonical_json(logged.get("arguments") or {})


def _drop_known(known: list[dict[str, Any]], logged: dict[str, Any]) -> bool:
    """Whether the trace already holds this call (the log confirms it, nothing to add)."""
    twin = next(
        (
            e
            for e in known
            if e["tool"] == logged["tool"]
            and canonical_json(e.get("arguments") or {})
            == canonical_json(logged.get("arguments") or {})
        ),
        None,
    )
    if twin is None:
        return False
    known.remove(twin)
    return True


def _answer(request: dict[str, Any], logged: dict[str, Any]) -> dict[str, Any]:
    event = {k: v for k, v in logged.items() if k != "seq"}
    event["call_id"] = request.get("id")
    event["extra"] = {**(logged.get("extra") or {}), "source": "tools log"}
    return event


def _placed(
    events: list[dict[str, Any]], after: dict[int, list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """Each answer after the events of the model call that asked (before the next model call)."""
    out: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []
    for i, event in enumerate(events):
        if event["type"] == "model_call":
            out.extend(waiting)
            waiting = list(after.get(i, []))
        out.append({k: v for k, v in event.items() if k != "seq"})
    return out + waiting


def _unmatched(logged: dict[str, Any]) -> str:
    ref = (logged.get("extra") or {}).get("jsonrpc_id")
    return (
        f"the tools log's call {logged['tool']}({canonical_json(logged.get('arguments') or {})})"
        f"{f' (JSON-RPC id {ref})' if ref is not None else ''} answers no tool call the model "
        "asked for with those arguments; pair the log of this run only"
    )
