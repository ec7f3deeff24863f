"""BeeAI's emitter events, as `openinference.instrumentation.beeai` exports them, back to calls.

BeeAI traces every emitter event as its own span, named `<target>-<n>` with the event's path in
the `target` attribute: one model call is `backend.<provider>.chat.start` (the request),
`.new_token` (one streamed fragment each), `.success` (the answer, one token per
`llm.output_messages.N`) and `.finish`; one tool run is `tool.<group>.<tool>.start` (the
arguments, `tool.parameters`), `.success` (`output.value`) or `.error`, and `.finish`. Read one
span per event, a run shows a model call per event and tools without their arguments; this
module merges each call's events into one observation (Langfuse's shape, which is how these
exports reach us) before the span conventions read it.
"""

from __future__ import annotations

import json
from typing import Any

from corpus_tool.ingest.coerce import loads_maybe, obj

SCOPE = "openinference.instrumentation.beeai"
_EVENTS = ("start", "new_token", "success", "error", "finish")


def is_beeai(observations: list[Any]) -> bool:
    return any(_scope(o) == SCOPE for o in observations if isinstance(o, dict))


def _scope(obs: dict[str, Any]) -> str | None:
    return obj(_meta(obs).get("scope")).get("name")


def _meta(obs: dict[str, Any]) -> dict[str, Any]:
    return obj(loads_maybe(obs.get("metadata")))


def _attrs(obs: dict[str, Any]) -> dict[str, Any]:
    return obj(_meta(obs).get("attributes"))


def _event(obs: dict[str, Any]) -> tuple[str, str] | None:
    """(call path, event) of a model or tool event span: `("tool.search.wikipedia", "start")`."""
    target = str(_attrs(obs).get("target") or "")
    path, _, event = target.rpartition(".")
    if event not in _EVENTS or not (path.startswith("backend.") or path.startswith("tool.")):
        return None
    return path, event


def collapse(observations: list[Any]) -> list[Any]:
    """The observations with each model call's and tool run's event spans merged into one."""
    by_id = {str(o.get("id")): o for o in observations if isinstance(o, dict)}
    ordered = sorted(by_id.values(), key=lambda o: str(o.get("startTime") or ""))
    open_calls: dict[str, list[list[dict[str, Any]]]] = {}
    calls: list[list[dict[str, Any]]] = []
    merged_ids: set[str] = set()
    for obs in ordered:
        found = _event(obs)
        if found is None:
            continue
        path, event = found
        merged_ids.add(str(obs.get("id")))
        pending = open_calls.setdefault(path, [])
        if event == "start" or not pending:
            pending.append([obs])
            calls.append(pending[-1])
        else:
            pending[0].append(obs)
        if event == "finish":
            pending.pop(0)
    rest = [o for o in observations if not (isinstance(o, dict) and str(o.get("id")) in merged_ids)]
    return rest + [_merge(group, by_id) for group in calls]


def _merge(group: list[dict[str, Any]], by_id: dict[str, Any]) -> dict[str, Any]:
    first = group[0]
    path = (_event(first) or ("", ""))[0]
    events = {e: [o for o in group if (_event(o) or ("", ""))[1] == e] for e in _EVENTS}
    last = group[-1]
    attrs = {k: v for k, v in _attrs(first).items() if k not in ("target", "name")}
    out = {
        **first,
        "name": path,
        "endTime": last.get("endTime") or first.get("endTime"),
        "merged_events": [str(o.get("name")) for o in group],
    }
    if path.startswith("tool."):
        attrs.update(_tool(first, events, by_id))
        out["type"] = "TOOL"
        out["output"] = loads_maybe(attrs.get("output.value"))
        if events["error"]:
            out["level"] = "ERROR"
            out["statusMessage"] = _error_text(events["error"][0])
    else:
        for obs in events["success"] + events["finish"]:
            attrs.update({k: v for k, v in _attrs(obs).items() if k not in ("target", "name")})
        if events["error"]:
            out["level"] = "ERROR"
            out["statusMessage"] = _error_text(events["error"][0])
        out["type"] = "GENERATION"
        out["output"] = None
        out["model"] = next((o.get("model") for o in group if o.get("model")), first.get("model"))
    meta = _meta(first)
    out["metadata"] = {**meta, "attributes": attrs}
    return out


def _tool(
    start: dict[str, Any], events: dict[str, list[dict[str, Any]]], by_id: dict[str, Any]
) -> dict[str, Any]:
    """A tool run's OpenInference attributes: the tool's name as the agent knew it (the
    `tool.name` of the agent update around the run), its arguments and its output."""
    path = (_event(start) or ("", ""))[0]
    parent = _attrs(obj(by_id.get(str(start.get("parentObservationId")))))
    name = parent.get("tool.name") or path.rsplit(".", 1)[-1]
    params = _attrs(start).get("tool.parameters")
    attrs: dict[str, Any] = {"openinference.span.kind": "TOOL", "tool.name": name}
    if params is not None:
        attrs["input.value"] = params if isinstance(params, str) else json.dumps(params)
    for obs in events["success"]:
        if "output.value" in _attrs(obs):
            value = _attrs(obs)["output.value"]
            attrs["output.value"] = value if isinstance(value, str) else json.dumps(value)
    return attrs


def _error_text(obs: dict[str, Any]) -> str:
    a = _attrs(obs)
    value = a.get("exception.message") or a.get("output.value") or obs.get("statusMessage")
    return str(value or "tool error")
