"""A run's events assembled into a trace body, with the run-level facts the events imply.

A trace body is trace.yaml without `schema_version`, `id`, `source` and `redaction`:
`{recorded, input, events, terminal, extra?}`, as schemas/trace.schema.json describes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from corpus_tool.ingest.build import plain
from corpus_tool.ingest.chat import text_of
from corpus_tool.ingest.linking import link_ids
from corpus_tool.io.files import canonical_json
from corpus_tool.model.values import ABSENT


def with_seq(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events with seq 1..n in the order given, seq first for readable YAML."""
    return [{"seq": i, **e} for i, e in enumerate(events, start=1)]


def models_of(events: list[dict[str, Any]]) -> list[str]:
    """Model ids used, sorted: the id each answer names, and the id asked for when it differs
    (`gpt-4.1-mini` asked, `gpt-4.1-mini-2025-04-14` answered)."""
    found = set()
    for event in events:
        if event["type"] == "model_call":
            found.add(event.get("model"))
            found.add((event.get("extra") or {}).get("requested_model"))
    return sorted(m for m in found if isinstance(m, str) and m)


def derived_config_hash(
    events: list[dict[str, Any]], offered: list[Any] | None = None
) -> str | None:
    """A fingerprint of what the agent was offered, as the run shows it.

    Formats that record no agent version still show what configures the agent: the first
    system prompt, the tool definitions offered to the model (every request's `tools`, or
    `offered` when the format lists them elsewhere) and the models. Tools merely *called*
    do not count: two runs of one agent that call different tools hash the same. A trace
    that holds no tool definitions hashes the prompt and models alone.
    """
    system = [
        m.get("content")
        for e in events
        if e["type"] == "model_call"
        for m in e["request"]["messages"][:2]
        if isinstance(m, dict) and m.get("role") in ("system", "developer")
    ]
    tools = {canonical_json(t) for t in offered or []}
    for event in events:
        if event["type"] == "model_call":
            tools.update(canonical_json(t) for t in event["request"].get("tools") or [])
    facts = {"system": system[:1], "tools": sorted(tools), "models": models_of(events)}
    if not any(facts.values()):
        return None
    blob = canonical_json(facts)
    return "derived-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def trace_body(
    events: list[dict[str, Any]],
    *,
    started_at: str | None,
    agent: dict[str, Any],
    user_message: str | None,
    terminal: dict[str, Any],
    extra: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    conversation: list[Any] | None = None,
    offered: list[Any] | None = None,
) -> dict[str, Any]:
    """A trace body; an agent without version gets a config hash of what it was offered."""
    numbered = with_seq(link_ids(plain(events)))
    facts = {k: v for k, v in agent.items() if v is not None}
    if not facts.get("version") and not facts.get("config_hash"):
        derived = derived_config_hash(numbered, offered)
        if derived:
            facts["config_hash"] = derived
    out: dict[str, Any] = {
        "recorded": {"started_at": started_at, "agent": facts, "models": models_of(numbered)},
        "input": {
            "user_message": user_message,
            "context": context or {},
            "conversation": plain(conversation or []),
        },
        "events": numbered,
        "terminal": terminal,
    }
    if extra:
        out["extra"] = plain({k: v for k, v in extra.items() if v not in (None, {}, [])})
        if not out["extra"]:
            del out["extra"]
    return out


def first_user_text(events: list[dict[str, Any]]) -> str | None:
    """The first user message the first model call was sent: the run's input."""
    for event in events:
        if event["type"] != "model_call":
            continue
        for msg in event["request"]["messages"]:
            if isinstance(msg, dict) and msg.get("role") == "user":
                return text_of(msg.get("content")) or json.dumps(msg.get("content"))
        return None
    return None


def last_answer(events: list[dict[str, Any]]) -> str | None:
    """The text of the last model answer that asked for no tool: the run's output."""
    for event in reversed(events):
        if event["type"] == "model_call" and not event["response"].get("tool_calls"):
            content = event["response"].get("content")
            return content if isinstance(content, str) else None
    return None


def terminal_from(
    events: list[dict[str, Any]], failed: bool, output: Any = ABSENT
) -> dict[str, Any]:
    """`failed` when the run errored, else `succeeded` with the last answer as output."""
    answer = last_answer(events) if output is ABSENT else output
    if failed:
        return {"status": "failed", "output": answer}
    if answer is None and not events:
        return {"status": "unknown", "output": None}
    return {"status": "succeeded", "output": answer}
