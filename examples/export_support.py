"""What the framework recording script shares: a scripted model and pinned exports.

`ScriptedOpenAI` answers the Chat Completions requests of a real `openai` client with planted
bodies, offline; `ScriptedChatModel` is LangChain's scripted chat model with `bind_tools`.
`pinned` rewrites the values a tracer invents on each run (run, span and trace ids, clock
stamps) to fixed ones, keeping their order, and drops the host facts LangChain's tracer adds
(platform, interpreter version), so re-running the script changes no byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.utils.function_calling import convert_to_openai_tool

Call = tuple[str, str, dict[str, Any]]


def completion(content: str | None = None, calls: list[Call] | None = None) -> dict[str, Any]:
    """One chat.completion body: text, or tool calls as (id, name, arguments)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ]
    return {
        "id": "chatcmpl-example",
        "object": "chat.completion",
        "created": 1748772000,
        "model": "gpt-4.1-mini-2025-04-14",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 18, "total_tokens": 138},
    }


class ScriptedOpenAI:
    """A Chat Completions endpoint answering each request with the next planted body."""

    def __init__(self, bodies: list[dict[str, Any]]) -> None:
        self._bodies: Iterator[dict[str, Any]] = iter(bodies)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=next(self._bodies))

    def async_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))


class ScriptedChatModel(GenericFakeChatModel):
    """LangChain's scripted chat model, named like the model it stands in for, with tools."""

    model: str = "gpt-4.1-mini"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)


# -- pinning -----------------------------------------------------------------------------------
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_PREFIXED = re.compile(r"\b(span|trace|group)_([0-9a-f]{24,32})\b")
_HEX_KEYS = ("traceId", "spanId", "parentSpanId")
_ISO_KEYS = ("started_at", "ended_at", "start_time", "end_time", "time")
_NANO_KEYS = ("startTimeUnixNano", "endTimeUnixNano", "timeUnixNano")
_COMPACT = re.compile(r"\d{8}T\d{12}Z")
_HOST_KEYS = ("runtime",)
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # an object's repr: where it sat in memory
_FILE = re.compile(r'File "([^"]+)"')  # a traceback's frames: where this checkout lives
ROOT = Path(__file__).resolve().parents[1]
START = datetime(2025, 6, 1, 10, 0, tzinfo=timezone.utc)


def pinned(doc: Any) -> Any:
    """`doc` with invented ids and clock stamps replaced by fixed ones, order kept."""
    instants = sorted(set(_instants(doc)))
    clock = {ns: START + timedelta(milliseconds=rank) for rank, ns in enumerate(instants)}
    return _Pin(clock).walk(doc, None)


class _Pin:
    def __init__(self, clock: dict[int, datetime]) -> None:
        self.clock = clock
        self.ids: dict[str, str] = {}

    def walk(self, value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            return {k: self.walk(v, k) for k, v in value.items() if k not in _HOST_KEYS}
        if isinstance(value, list):
            return [self.walk(v, key) for v in value]
        if key in _NANO_KEYS and value is not None:
            return type(value)(_ns(self.clock[int(value)]))
        if not isinstance(value, str):
            return value
        if key in _HEX_KEYS and value:
            return self._id(value, lambda n: f"{n:0{len(value)}x}")
        if key in _ISO_KEYS and _iso_ns(value) is not None:
            return _iso_like(value, self.clock[_iso_ns(value) or 0])
        text = _COMPACT.sub(lambda m: self.clock[_compact_ns(m.group(0))].strftime(
            "%Y%m%dT%H%M%S%fZ"), value)  # fmt: skip
        text = _FILE.sub(lambda m: f'File "{_where(m.group(1))}"', _ADDRESS.sub("", text))
        text = _UUID.sub(lambda m: self._id(m.group(0), _uuid), text)
        return _PREFIXED.sub(
            lambda m: self._id(m.group(0), lambda n: f"{m.group(1)}_{n:0{len(m.group(2))}x}"),
            text,
        )

    def _id(self, old: str, make: Any) -> str:
        if old not in self.ids:
            self.ids[old] = make(len(self.ids) + 1)
        return self.ids[old]


def _where(path: str) -> str:
    """A traceback's file as a reader of the incident can place it, on any machine."""
    if "site-packages/" in path:
        return "site-packages/" + path.split("site-packages/", 1)[1]
    if path.startswith(str(ROOT) + "/"):
        return path[len(str(ROOT)) + 1 :]
    return Path(path).name


def _uuid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-{n:012x}"


def _instants(value: Any, key: str | None = None) -> Iterator[int]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _instants(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _instants(v, key)
    elif key in _NANO_KEYS and value is not None:
        yield int(value)
    elif isinstance(value, str):
        iso = _iso_ns(value) if key in _ISO_KEYS else None
        if iso is not None:
            yield iso
        yield from (_compact_ns(m) for m in _COMPACT.findall(value))


def _iso_ns(text: str) -> int | None:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return _ns(when if when.tzinfo else when.replace(tzinfo=timezone.utc))


def _compact_ns(text: str) -> int:
    return _ns(datetime.strptime(text, "%Y%m%dT%H%M%S%fZ").replace(tzinfo=timezone.utc))


def _ns(when: datetime) -> int:
    delta = when - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000


def _iso_like(original: str, when: datetime) -> str:
    """`when` written the way `original` was: its offset style and fraction."""
    if original.endswith("Z"):
        return when.isoformat(timespec="microseconds").replace("+00:00", "Z")
    aware = "+" in original[10:] or original.count("-") > 2
    text = when.isoformat(timespec="microseconds")
    return text if aware else text.replace("+00:00", "")
