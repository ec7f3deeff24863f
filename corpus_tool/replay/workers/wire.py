"""The wire between the grading process and its replay workers: frames and the messages in them.

Each message is one frame: an 8-byte length, then the payload. The two directions differ on
purpose:

- parent -> worker (the worker's setup, then one case per run) is a pickle: the parent trusts
  itself, and a pickle hands the worker exactly the values the parent parsed (dates in a YAML
  tool result stay dates), so a replay in a worker sees what an in-process replay would; the
  trace travels as its parsed document, and the worker builds the model from it;
- worker -> parent is JSON, decoded with limits and checked field by field: the worker runs
  agent code, so what it sends is untrusted input, never unpickled, and a reply that does not
  fit is an error value for its case, not a crash of the run. Values that JSON cannot carry
  travel as their `str()`, which is also how the results document writes them.

All (de)serialization of `Replayed` lives here (`replay_dict`, `replay_from`): events travel in
their trace.yaml form (`Event.to_doc`) and are rebuilt with the trace model's own reader.
"""

from __future__ import annotations

import json
import os
import pickle
import select
import struct
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus_tool.model.config import Config
from corpus_tool.model.events import (
    EVENT_TYPES,
    Event,
    ModelCallEvent,
    ToolCallEvent,
    event_from_doc,
)
from corpus_tool.model.expected import Expected
from corpus_tool.model.field_diff import FieldDiff
from corpus_tool.model.trace import Terminal, Trace
from corpus_tool.model.values import ABSENT
from corpus_tool.replay.divergence import KINDS, Divergence
from corpus_tool.replay.engine import TERMINAL_STATUSES, CaseSpec, Replayed
from corpus_tool.replay.live import LiveSpec
from corpus_tool.replay.requests import AGENT, RECORDING, SHARED, RequestNote

HEADER = struct.Struct(">Q")
MAX_REPLY_BYTES = 256 * 1024 * 1024
"""A reply past this is refused (an agent recording gigabytes is not a trajectory to grade)."""


class WireError(Exception):
    """A frame or message that does not fit the protocol; the message says what was wrong."""


class Closed(WireError):
    """The other side closed the pipe (the worker exited, or the parent went away)."""


class Late(WireError):
    """No complete frame before the deadline."""


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker needs before its first case (the first frame it reads)."""

    entrypoint: str
    corpus_root: Path
    config: Config
    readonly: tuple[Path, ...]  # the repository (first), its git dirs: bound read-only where
    # namespaces allow, writes refused by the fence everywhere
    capture: Path  # the file fd 1 and 2 write to: the agent's prints
    stack: Path  # where the worker's stack is dumped when the parent asks (SIGUSR1)
    namespaces: bool = True  # False: skip them (tests of the fallback where they do exist)
    hidden: tuple[Path, ...] = ()  # files the agent must not read (the redaction key file)
    seccomp: bool = True  # False: no filter (tests of that path on a machine that has one)


# -- frames ------------------------------------------------------------------------------


def write_frame(fd: int, payload: bytes) -> None:
    """Write one frame, all of it (a closed pipe is `Closed`)."""
    write_frames(fd, [payload])


def write_frames(fd: int, payloads: Sequence[bytes]) -> None:
    """Write frames back to back, all of them (a closed pipe is `Closed`)."""
    view = memoryview(b"".join(b for p in payloads for b in (HEADER.pack(len(p)), p)))
    try:
        while view:
            view = view[os.write(fd, view) :]
    except (BrokenPipeError, OSError) as err:
        raise Closed(f"the pipe is closed ({err.strerror or err})") from None


def read_frame(fd: int, limit: int = MAX_REPLY_BYTES, deadline: float | None = None) -> bytes:
    """Read one frame; `deadline` (time.monotonic) bounds the wait for all of it."""
    size = HEADER.unpack(_read_exactly(fd, HEADER.size, deadline))[0]
    if size > limit:
        raise WireError(f"a message of {size:,} bytes (the limit is {limit:,})")
    return _read_exactly(fd, size, deadline)


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    wanted = size
    while wanted:
        if deadline is not None:  # past it, still take what is already there
            left = max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], left)[0]:
                raise Late("no answer before the deadline")
        chunk = os.read(fd, min(wanted, 1 << 20))
        if not chunk:
            raise Closed("the pipe closed mid-message" if chunks else "the pipe closed")
        chunks.append(chunk)
        wanted -= len(chunk)
    return b"".join(chunks)


# -- parent -> worker ----------------------------------------------------------------------


def encode_setup(setup: WorkerSetup) -> bytes:
    """The worker's first frame."""
    return pickle.dumps(setup, protocol=pickle.HIGHEST_PROTOCOL)


def decode_setup(payload: bytes) -> WorkerSetup:
    """In the worker: the setup the parent sent (trusted)."""
    setup = pickle.loads(payload)
    if not isinstance(setup, WorkerSetup):
        raise WireError("the first message is not a worker setup")
    return setup


@dataclass(frozen=True)
class CaseRequest:
    """One case as the parent sends it: the trace as the document the parent parsed (plain
    data pickles fast, and the worker builds its Trace from it), the expectations as the
    parent's model, the mode, the ignored request fields, which request fields compare."""

    trace: Any
    expected: Expected
    mode: str
    ignored: Sequence[str] = ()
    request_fields: str = SHARED
    live: LiveSpec | None = None

    def spec(self) -> CaseSpec:
        """In the worker: the case to replay."""
        trace = Trace.from_doc(self.trace)
        return CaseSpec(
            trace, self.expected, self.mode, self.ignored, self.request_fields, self.live
        )


def encode_case(request: CaseRequest) -> bytes:
    """One case for one run."""
    return pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)


def run_request(run: int, case: bytes) -> bytes:
    """One run of an encoded case, numbered: the worker's reply must carry the same number."""
    return HEADER.pack(run) + case


def decode_run(payload: bytes) -> tuple[int, CaseRequest]:
    """In the worker: the run number and the case to replay (trusted: from the parent)."""
    request = pickle.loads(payload[HEADER.size :])
    if not isinstance(request, CaseRequest):
        raise WireError("the message is not a case")
    return HEADER.unpack(payload[: HEADER.size])[0], request


# -- worker -> parent ----------------------------------------------------------------------


def encode_reply(message: Mapping[str, Any]) -> bytes:
    """A worker's message as JSON (values JSON lacks become their str())."""
    return json.dumps(message, ensure_ascii=True, default=str).encode("ascii")


def decode_reply(payload: bytes) -> dict[str, Any]:
    """A worker's message, checked to be a JSON object with a known `kind`."""
    try:
        message = json.loads(payload)
    except (ValueError, RecursionError) as err:
        raise WireError(f"not JSON ({type(err).__name__})") from None
    if not isinstance(message, dict) or message.get("kind") not in KINDS_OF_REPLY:
        raise WireError("not a message of the worker protocol")
    return message


KINDS_OF_REPLY = ("ready", "import_error", "replay", "error", "model")


def replay_dict(run: Replayed) -> dict[str, Any]:
    """A Replayed as plain data (the worker's side of the pair): events in trace.yaml form."""
    return {
        "events": [event.to_doc() for event in run.events],
        "terminal": run.terminal.to_doc(),
        "divergence": run.divergence.as_dict() if run.divergence else None,
        "unused": [call.to_doc() for call in run.unused],
        "sequence_diff": list(run.sequence_diff),
        "notes": [_note_dict(note) for note in run.notes],
    }


def replay_from(data: Any) -> Replayed:
    """The Replayed a worker sent, every field checked (the parent's side of the pair)."""
    if not isinstance(data, dict):
        raise WireError("the replay is not an object")
    events = tuple(_event(doc) for doc in _list_of(data.get("events"), dict, "events"))
    unused = tuple(_recorded(doc) for doc in _list_of(data.get("unused"), dict, "unused"))
    diff = tuple(_list_of(data.get("sequence_diff"), str, "sequence_diff"))
    divergence = _divergence(data.get("divergence"))
    notes = tuple(_note(doc) for doc in _list_of(data.get("notes", []), dict, "notes"))
    # no `cut`: the parent works out where the run stopped from its own files (cut_short)
    return Replayed(events, _terminal(data.get("terminal")), divergence, unused, diff, notes)


def _note_dict(note: RequestNote) -> dict[str, Any]:
    return {**note.as_dict(), "value": note.value}


def _note(doc: dict[str, Any]) -> RequestNote:
    steps = _list_of(doc.get("steps"), int, "note steps")
    if not isinstance(doc.get("path"), str) or doc.get("carried_by") not in (RECORDING, AGENT):
        raise WireError("a note has no path or no side")
    if not all(_is_int(s) for s in steps):
        raise WireError("a note's steps are not integers")
    return RequestNote(doc["path"], doc["carried_by"], tuple(steps), doc.get("value"))


def _event(doc: dict[str, Any]) -> Event:
    """An event of the replay, in the typed model; a shape the model cannot hold is refused."""
    if not _is_int(doc.get("seq")) or doc.get("type") not in EVENT_TYPES:
        raise WireError("an event has no integer seq or no known type")
    try:
        return event_from_doc(doc)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise WireError(
            f"a {doc['type']} event does not fit the trace model ({err!r:.80})"
        ) from None


def _recorded(doc: dict[str, Any]) -> ModelCallEvent | ToolCallEvent:
    call = _event(doc)
    if not isinstance(call, (ModelCallEvent, ToolCallEvent)):
        raise WireError("an unused recorded call is neither a model nor a tool call")
    return call


def _terminal(doc: Any) -> Terminal:
    if not isinstance(doc, dict) or doc.get("status") not in TERMINAL_STATUSES:
        raise WireError("the replay's terminal has no valid status")
    if doc.get("seq") is not None and not _is_int(doc.get("seq")):
        raise WireError("the replay's terminal seq is not an integer")
    return Terminal.from_doc(doc)


def _divergence(data: Any) -> Divergence | None:
    if data is None:
        return None
    if not isinstance(data, dict) or data.get("kind") not in KINDS:
        raise WireError("the divergence has no known kind")
    if not _is_int(data.get("step")) or not isinstance(data.get("message"), str):
        raise WireError("the divergence has no step or message")
    candidate = data.get("candidate")
    if candidate is not None and not isinstance(candidate, dict):
        raise WireError("the divergence's candidate is not an object")
    diff = tuple(
        FieldDiff(str(d.get("path")), d.get("expected", ABSENT), d.get("actual", ABSENT))
        for d in _list_of(data.get("diff"), dict, "divergence diff")
    )
    stopped = data.get("stopped")
    if not isinstance(stopped, bool):
        raise WireError("the divergence's `stopped` is not true or false")
    return Divergence(
        data["kind"],
        data["step"],
        data["message"],
        data.get("expected"),
        data.get("actual"),
        candidate,
        diff,
        stopped,
    )


def _list_of(value: Any, kind: type, what: str) -> list[Any]:
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        raise WireError(f"the replay's {what} is not a list of {kind.__name__}")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
