"""The faults `corpus vary` injects: `--fault` parsed, and the `fault:` block each writes.

A fault replaces the recorded answer of one tool call's first attempt (docs/variants.md); what
a retry gets stays the recorded answer, so nothing here changes the recording itself.
"""

from __future__ import annotations

import copy
import http
import re
from dataclasses import dataclass
from typing import Any

from corpus_tool.errors import UsageError
from corpus_tool.io.files import canonical_json
from corpus_tool.model.events import SideEffectEvent, ToolCallEvent
from corpus_tool.model.trace import Trace
from corpus_tool.model.values import ABSENT

KINDS = ("timeout", "error", "http", "drift", "empty", "duplicate")
DRIFTS = ("removed", "renamed", "retyped")
SYNTAX = (
    "timeout[:TOOL[:TYPE]], error:TYPE[:TOOL], http:STATUS[:TOOL], "
    "drift:FIELD[:TOOL[:removed|renamed|retyped]], empty[:TOOL] or duplicate[:TOOL]"
)
_TYPE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


@dataclass(frozen=True)
class FaultSpec:
    """One `--fault`: its kind, the tool it names (None: every side-effecting call) and its
    argument (the error type, the HTTP status, the drifted field)."""

    kind: str
    tool: str | None = None
    arg: str | None = None
    how: str = "removed"

    def at(self, tool: str) -> FaultSpec:
        """The same fault aimed at `tool`."""
        return FaultSpec(self.kind, tool, self.arg, self.how)

    @property
    def slug(self) -> str:
        """The kind as the variant id spells it: `timeout`, `http503`, ..."""
        return f"http{self.arg}" if self.kind == "http" else self.kind

    def describe(self) -> str:
        """`a timeout (TimeoutError) of create_refund`."""
        what = {
            "timeout": f"a timeout ({self.arg or 'TimeoutError'})",
            "error": f"an error {self.arg}",
            "http": f"an HTTP {self.arg} answer",
            "drift": f"a drifted result (field {self.arg} {self.how})",
            "empty": "an empty result",
            "duplicate": "a timeout after the call executed (duplicate)",
        }[self.kind]
        return f"{what} of {self.tool}"


def parse_fault(text: str) -> FaultSpec:
    """`--fault` as a FaultSpec; a malformed one is a UsageError showing the syntax."""
    kind, *rest = text.split(":")
    bad = UsageError(f"--fault {text!r}: write {SYNTAX}")
    if kind not in KINDS:
        raise bad
    parts = [p or None for p in rest]
    if kind in ("empty", "duplicate"):
        if len(parts) > 1:
            raise bad
        return FaultSpec(kind, parts[0] if parts else None)
    if kind == "timeout":
        if len(parts) > 2 or (len(parts) == 2 and not _TYPE.fullmatch(parts[1] or "")):
            raise bad
        return FaultSpec(kind, parts[0] if parts else None, parts[1] if len(parts) == 2 else None)
    if not parts or parts[0] is None:
        raise bad
    return _with_argument(kind, parts, bad)


def _with_argument(kind: str, parts: list[str | None], bad: UsageError) -> FaultSpec:
    arg, tool = parts[0], parts[1] if len(parts) > 1 else None
    if kind == "error" and (len(parts) > 2 or not _TYPE.fullmatch(arg or "")):
        raise bad
    if kind == "http" and (
        len(parts) > 2 or not (arg or "").isdigit() or not 400 <= int(arg or 0) <= 599
    ):
        raise UsageError(
            f"--fault {':'.join([kind, *(p or '' for p in parts)])!r}: the status of "
            "an http fault is a number from 400 to 599 (http:503:TOOL)"
        )
    if kind == "drift":
        how = parts[2] if len(parts) > 2 else "removed"
        if len(parts) > 3 or how not in DRIFTS:
            raise bad
        return FaultSpec(kind, tool, arg, str(how))
    return FaultSpec(kind, tool, arg)


def side_effecting(trace: Trace, idempotent: tuple[str, ...] = ()) -> list[str]:
    """The tools whose calls have a side effect, in the order first called: a call that carries
    an idempotency key, one a `side_effect` event follows before the next call, or a tool
    expect.idempotency names."""
    found: list[str] = []
    events = trace.events
    for index, event in enumerate(events):
        if not isinstance(event, ToolCallEvent) or event.tool in found:
            continue
        if event.tool in idempotent or _keyed(event) or effects_after(events, index):
            found.append(event.tool)
    return found


def effects_after(events: tuple[Any, ...], index: int) -> list[SideEffectEvent]:
    """The side effects recorded after the call at `index`, before the next model or tool call."""
    out: list[SideEffectEvent] = []
    for event in events[index + 1 :]:
        if event.type in ("model_call", "tool_call"):
            break
        if isinstance(event, SideEffectEvent):
            out.append(event)
    return out


def _keyed(event: ToolCallEvent) -> bool:
    args = event.arguments
    return bool(event.idempotency_key or args.get("idempotency_key") or args.get("idempotencyKey"))


def fault_doc(
    fault: FaultSpec, event: ToolCallEvent, effects: list[SideEffectEvent]
) -> dict[str, Any]:
    """The `fault:` block written on the faulted tool_call event: a copy sharing no value with
    the recording (YAML would write a shared one as an anchor and an alias)."""
    return copy.deepcopy(_fault_doc(fault, event, effects))


def _fault_doc(
    fault: FaultSpec, event: ToolCallEvent, effects: list[SideEffectEvent]
) -> dict[str, Any]:
    tool = event.tool
    note = "fault injected by corpus vary; a retry gets the recorded answer"
    if fault.kind == "timeout":
        return {
            "kind": "timeout",
            "error": _error(fault.arg or "TimeoutError", f"{tool} timed out ({note})"),
        }
    if fault.kind == "error":
        return {"kind": "error", "error": _error(str(fault.arg), f"{tool} failed ({note})")}
    if fault.kind == "http":
        return {
            "kind": "http",
            "status": int(str(fault.arg)),
            "result": http_result(int(str(fault.arg))),
        }
    if fault.kind == "drift":
        return {
            "kind": "drift",
            "field": fault.arg,
            "change": fault.how,
            "result": drifted(event, fault),
        }
    if fault.kind == "empty":
        return {"kind": "empty", "result": _empty(event.result)}
    done = [_effect(e) for e in effects] or [{"kind": f"{tool}_executed"}]
    message = f"{tool} timed out after the request was executed ({note})"
    return {"kind": "duplicate", "error": _error("TimeoutError", message), "effects": done}


def http_result(status: int) -> dict[str, Any]:
    """What a typical HTTP tool wrapper returns for a failed status instead of raising."""
    try:
        reason = http.HTTPStatus(status).phrase
    except ValueError:
        reason = "HTTP error"
    return {"status": status, "error": reason}


def drifted(event: ToolCallEvent, fault: FaultSpec) -> Any:
    """The recorded result with the field removed, renamed or of another type."""
    result, name = event.result, str(fault.arg)
    if not isinstance(result, dict) or name not in result:
        fields = ", ".join(sorted(result)) if isinstance(result, dict) else "none: not an object"
        raise UsageError(
            f"--fault drift:{name}: the recorded result of {event.tool} (seq {event.seq}) has no "
            f"field {name!r}; its fields: {fields or 'none'}"
        )
    out = {k: v for k, v in result.items() if k != name}
    if fault.how == "renamed":
        out[f"{name}_v2"] = result[name]
    elif fault.how == "retyped":
        value = result[name]
        out[name] = [value] if isinstance(value, str) else canonical_json(value)
    return out


def _empty(result: Any) -> Any:
    if isinstance(result, dict):
        return {}
    if isinstance(result, list):
        return []
    return "" if isinstance(result, str) else None


def _error(kind: str, message: str) -> dict[str, str]:
    return {"type": kind, "message": message}


def _effect(event: SideEffectEvent) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": event.kind}
    if event.target is not None:
        out["target"] = event.target
    if event.data is not ABSENT:
        out["data"] = event.data
    return out
