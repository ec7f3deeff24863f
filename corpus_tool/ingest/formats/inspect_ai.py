"""Inspect AI eval logs: `.json` logs and `.eval` zip archives; one run per sample and epoch.

A sample's `events` give model events (model, input, output choices) and tool events
(function, arguments, result or `error {type, message}`); a sample without events is read
from its `messages` transcript. `.eval` archives are read in memory, never extracted: only
`header.json` and `samples/*.json` are opened, each entry's size is checked before reading.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest import transcript
from corpus_tool.ingest.body import last_answer, terminal_from, trace_body
from corpus_tool.ingest.build import error_event, model_event, tool_event
from corpus_tool.ingest.chat import message, messages, text_of
from corpus_tool.ingest.coerce import arguments, error, obj, opt_id, result_value
from corpus_tool.ingest.imported import Imported

MAX_ENTRY_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 256 * 1024 * 1024
MAX_ENTRIES = 20_000


class InspectImporter:
    """Inspect AI logs."""

    name = "inspect-ai"

    def sniff_bytes(self, raw: bytes, path: Path) -> bool:
        return raw[:4] == b"PK\x03\x04" and path.suffix == ".eval"

    def read(self, raw: bytes, path: Path) -> Any:
        if raw[:4] != b"PK\x03\x04":
            return _json(raw, path)
        return read_eval_zip(raw, path)

    def sniff(self, data: Any, path: Path) -> bool:
        return isinstance(data, dict) and isinstance(data.get("eval"), dict) and "samples" in data

    def load(self, data: Any, path: Path) -> list[Imported]:
        if not self.sniff(data, path):
            raise InputError("not an Inspect AI log: expected {eval, samples}", path)
        header = data["eval"]
        samples = [s for s in data.get("samples") or [] if isinstance(s, dict)]
        if not samples:
            raise InputError("the log holds no samples (written with --no-log-samples?)", path)
        return [_run(s, header) for s in samples]


IMPORTER = InspectImporter()


def _json(raw: bytes, path: Path) -> Any:
    from corpus_tool.io import files

    return files.parse_json(raw, path)


def read_eval_zip(raw: bytes, path: Path) -> dict[str, Any]:
    """The header and samples of an `.eval` archive, with size limits against zip bombs."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile:
        raise InputError("not a readable .eval archive (bad zip)", path) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ENTRIES or sum(i.file_size for i in infos) > MAX_TOTAL_BYTES:
            raise InputError("the .eval archive is too large to read safely", path)
        names = {i.filename: i for i in infos}
        if "header.json" not in names:
            raise InputError(".eval archive without header.json", path)
        header = _entry(archive, names["header.json"], path)
        sample_names = sorted(n for n in names if n.startswith("samples/") and n.endswith(".json"))
        samples = [_entry(archive, names[n], path) for n in sample_names]
    return {**header, "samples": samples}


def _entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> Any:
    if info.file_size > MAX_ENTRY_BYTES:
        raise InputError(f"{info.filename} in the archive is over {MAX_ENTRY_BYTES:,} bytes", path)
    try:
        raw = archive.read(info)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError):
        # corrupt deflate data, an unsupported method, an encrypted entry
        raise InputError(f"{info.filename} in the archive cannot be unpacked", path) from None
    try:
        return _json(raw, path)
    except InputError as err:
        raise InputError(f"{info.filename} in the archive: {err.message}", path) from None


def _resolve(value: Any, attachments: dict[str, Any]) -> Any:
    """Inspect stores long strings once, as `attachment://<hash>` references: put them back."""
    if isinstance(value, str) and value.startswith("attachment://"):
        return attachments.get(value.removeprefix("attachment://"), value)
    if isinstance(value, list):
        return [_resolve(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, attachments) for k, v in value.items()}
    return value


def _run(sample: dict[str, Any], header: dict[str, Any]) -> Imported:
    attachments = sample.get("attachments")
    if isinstance(attachments, dict) and attachments:
        sample = _resolve({k: v for k, v in sample.items() if k != "attachments"}, attachments)
    model = header.get("model")
    raw_events = [e for e in sample.get("events") or [] if isinstance(e, dict)]
    if any(e.get("event") in ("model", "tool") for e in raw_events):
        events = [e for e in (_event(r) for r in raw_events) if e is not None]
    else:
        events = transcript.events(sample.get("messages") or [], lambda _m: model, _message_error)
    failure = sample.get("error")
    if failure:
        events.append(
            error_event(error(failure.get("message") if isinstance(failure, dict) else failure))
        )
    first = raw_events[0].get("timestamp") if raw_events else None
    sample_id, epoch = str(sample.get("id")), sample.get("epoch", 1)
    body = trace_body(
        events,
        started_at=first or header.get("created"),
        agent={"name": header.get("task"), "version": _version(header)},
        user_message=_input_text(sample.get("input")),
        terminal=terminal_from(events, bool(failure), _output(sample) or last_answer(events)),
        extra={
            "scores": sample.get("scores"),
            "target": sample.get("target"),
            "metadata": sample.get("metadata"),
        },
    )
    label = f"{_run_name(header)}sample-{sample_id}-epoch-{epoch}"
    return Imported(
        IMPORTER.name, body, trace_id=sample.get("uuid"), label=label, task_id=sample_id
    )


def _run_name(header: dict[str, Any]) -> str:
    """`<task>-<run id, 8 characters>-`: Inspect numbers samples from 1 in every log, so the
    sample id alone names the same case in every file."""
    task = str(header.get("task") or "").rsplit("/", 1)[-1]
    run = str(header.get("run_id") or header.get("eval_id") or "")[:8]
    return "".join(f"{part}-" for part in (task, run) if any(c.isalnum() for c in part))


def _version(header: dict[str, Any]) -> str | None:
    revision = obj(header.get("revision"))
    if revision.get("commit"):
        return str(revision["commit"])
    version = header.get("task_version")
    return None if version is None else str(version)


def _event(raw: dict[str, Any]) -> dict[str, Any] | None:
    where = {"timestamp": raw.get("timestamp"), "extra": {"span_id": raw.get("span_id")}}
    if raw["event"] == "model":
        output = obj(raw.get("output"))
        choices = output.get("choices") or [{}]
        msg = message(choices[0].get("message") or {})
        return model_event(
            raw.get("model"), messages(raw.get("input") or []), text_of(msg.get("content")),
            msg.get("tool_calls") or [], usage=output.get("usage"),
            finish_reason=choices[0].get("stop_reason"), tools=_offered(raw), **where,
        )  # fmt: skip
    if raw["event"] == "tool":
        err = raw.get("error")
        return tool_event(
            str(raw.get("function")), opt_id(raw.get("id")), arguments(raw.get("arguments")),
            result_value(raw.get("result")), error=_tool_error(err) if err else None, **where,
        )  # fmt: skip
    if raw["event"] == "error" and raw.get("error"):
        return error_event(
            error(raw["error"].get("message") if isinstance(raw["error"], dict) else raw["error"]),
            **where,
        )
    return None


def _offered(raw: dict[str, Any]) -> list[Any] | None:
    """The tools the model event offered (`tools`: name, description, parameters); none
    offered is left unrecorded, as the other formats leave it."""
    tools = raw.get("tools")
    return [t for t in tools if isinstance(t, dict)] or None if isinstance(tools, list) else None


def _tool_error(err: Any) -> dict[str, str]:
    if isinstance(err, dict):
        return {
            "type": str(err.get("type") or "ToolError"),
            "message": str(err.get("message") or ""),
        }
    return error(err, "ToolError")


def _message_error(msg: dict[str, Any]) -> dict[str, str] | None:
    err = msg.get("error")
    return _tool_error(err) if err else None


def _input_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    history = messages(value) if isinstance(value, list) else []
    return next((text_of(m.get("content")) for m in history if m.get("role") == "user"), None)


def _output(sample: dict[str, Any]) -> str | None:
    output = obj(sample.get("output"))
    choices = output.get("choices") or []
    if choices and isinstance(choices[0], dict):
        return text_of((choices[0].get("message") or {}).get("content"))
    return None
