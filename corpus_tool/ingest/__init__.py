"""Reading incidents: pick the format's importer (`formats/`), parse, and load its runs.

The formats live in `formats/`, one module each; what they share lives beside this file:
`imported` (what an importer yields), `values` and `chat` (reading values and messages),
`build` and `body` (events and the trace body), `linking`, `transcript`, and for span-based
formats `attrs`, `spans`, `genai_attrs`, `oi_attrs` and `otel`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.ingest.imported import Imported, Importer, ReadsBytes
from corpus_tool.ingest.pairing import pair
from corpus_tool.io import files


def read_incident(path: Path) -> bytes:
    """An incident's bytes: the file's, or for an OpenHands conversation directory
    (`base_state.json`, `events/`) its files joined into one JSON document."""
    from corpus_tool.ingest.formats import openhands_sdk

    if openhands_sdk.is_conversation(path):
        return files.json_text(openhands_sdk.read_conversation(path)).encode("utf-8")
    return files.read_bytes(path)


def is_one_incident(path: Path) -> bool:
    """A directory that is one incident (an OpenHands conversation), not a folder of them."""
    from corpus_tool.ingest.formats import openhands_sdk

    return openhands_sdk.is_conversation(path)


def parse(raw: bytes, path: Path, name: str = "auto") -> tuple[Any, Importer]:
    """Parse a file's bytes (JSON, or the format's own reader) and pick its importer."""
    importers = registry()
    if name == "auto":
        return _parse_auto(raw, path, importers)
    chosen = importers.get(name)
    if isinstance(chosen, ReadsBytes):
        return chosen.read(raw, path), chosen
    data = files.parse_json(raw, path)
    return data, pick(data, path, name)


def _parse_auto(raw: bytes, path: Path, importers: dict[str, Importer]) -> tuple[Any, Importer]:
    """One JSON parse; bytes that are not one JSON document (an archive, JSON lines, a log)
    go to the importer that reads its own bytes, else the JSON error stands."""
    try:
        data = files.parse_json(raw, path)
    except InputError:
        readers = (i for i in importers.values() if isinstance(i, ReadsBytes))
        reader = next((i for i in readers if i.sniff_bytes(raw, path)), None)
        if reader is None:
            _refuse_json_lines(raw, path, importers)
            raise
        return reader.read(raw, path), reader
    return data, pick(data, path)


def _refuse_json_lines(raw: bytes, path: Path, importers: dict[str, Importer]) -> None:
    """JSON lines no importer reads are a format not recognised, not broken JSON."""
    lines = [line for line in raw.splitlines() if line.strip()]
    if len(lines) < 2:
        return
    try:
        values = [json.loads(line) for line in lines[:50]]
    except (ValueError, RecursionError):
        return
    if all(isinstance(v, (dict, list)) for v in values):
        raise InputError(
            f"not a recognised incident: JSON lines (one JSON value per line) that no importer "
            f"reads (tried: {', '.join(importers)}); JSON lines are read as MCP logs, Claude "
            "Agent SDK streams, span lines and OTLP lines: "
            "export the trace as one JSON document, or pass --format NAME",
            path,
        )


SHAPE_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError)
"""What an importer raises on a value of a shape its format never has (a string where the
format has an object): bad input, not a crash (shape_error)."""


def shape_error(importer: str, err: Exception, path: Path) -> InputError:
    """The one-line refusal of a file whose values have shapes the format never has."""
    return InputError(
        f"not a well-formed {importer} file: {type(err).__name__}: {err}; "
        "check the export, or pass --format NAME if it is another format",
        path,
    )


def load(importer: Importer, data: Any, path: Path) -> list[Imported]:
    """The importer's runs; a file whose values have shapes the format never has is refused.

    Importers check the structure they rely on; a value of an unexpected type deeper down
    (a string where the format has an object) is bad input, not a crash.
    """
    try:
        return importer.load(data, path)
    except SHAPE_ERRORS as err:
        raise shape_error(importer.name, err, path) from None


def registry() -> dict[str, Importer]:
    """Importers by name, in sniffing order (most specific first)."""
    from corpus_tool.ingest.formats import (
        agentops,
        claude_agent_sdk,
        inspect_ai,
        langfuse,
        langsmith,
        mcp,
        mini_swe_agent,
        mlflow,
        native,
        openai_agents,
        openhands,
        openhands_sdk,
        openinference,
        otel_genai,
        swe_agent,
        tau_bench,
        vercel_ai,
    )

    importers: list[Importer] = [
        native.IMPORTER,
        openai_agents.IMPORTER,
        langfuse.IMPORTER,
        langsmith.IMPORTER,
        otel_genai.IMPORTER,
        openinference.IMPORTER,
        tau_bench.TAU_BENCH,
        tau_bench.TAU2_BENCH,
        inspect_ai.IMPORTER,
        swe_agent.IMPORTER,
        openhands_sdk.IMPORTER,
        openhands.IMPORTER,
        agentops.IMPORTER,
        mcp.IMPORTER,
        mini_swe_agent.IMPORTER,
        claude_agent_sdk.IMPORTER,
        mlflow.IMPORTER,
        vercel_ai.IMPORTER,
    ]
    return {imp.name: imp for imp in importers}


def pick(data: Any, path: Path, name: str = "auto") -> Importer:
    """The importer named, or the first whose sniff recognises the data."""
    importers = registry()
    if name != "auto":
        if name not in importers:
            raise InputError(f"unknown format {name!r}; known: auto, {', '.join(importers)}", path)
        return importers[name]
    for importer in importers.values():
        if importer.sniff(data, path):
            return importer
    raise InputError(
        f"not a recognised incident (tried: {', '.join(importers)}); "
        "check the file is a trace export or pass --format NAME",
        path,
    )


def with_tools_log(run: Imported, log: Path) -> Imported:
    """`run` (a model trace) completed by the tool calls an MCP log of the same run holds.

    What `corpus add MODEL_TRACE --tools-log LOG` does; `ingest.pairing` says how calls match.
    The log's fingerprint and server are kept under the body's `extra.tools_log`.
    """
    raw = files.read_bytes(log)
    data, importer = parse(raw, log, "mcp")
    (tools,) = load(importer, data, log)
    body = pair(run.body, tools.body, log)
    server = (tools.body.get("extra") or {}).get("server")
    record = {"format": importer.name, "sha256": hashlib.sha256(raw).hexdigest(), "server": server}
    extra = {**(body.get("extra") or {}), "tools_log": {k: v for k, v in record.items() if v}}
    return replace(run, body={**body, "extra": extra})
