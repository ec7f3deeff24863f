"""Values importers read from any format: JSON-in-strings, ids, errors, times."""

from __future__ import annotations

import ast
import json
import re
from datetime import datetime, timezone
from typing import Any

from corpus_tool.model.values import parse_error, parse_time

_PLACEHOLDERS = {"", "<not specified>", "None", "null"}


def obj(value: Any) -> dict[str, Any]:
    """A value that should be an object, or {} when the source had something else."""
    return value if isinstance(value, dict) else {}


def loads_maybe(value: Any) -> Any:
    """A JSON document held in a string, parsed; anything else as it came."""
    if isinstance(value, str) and value[:1] in ("{", "[", '"'):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def result_value(raw: Any) -> Any:
    """A tool result in one form: structured results the source wrote as text become structures.

    JSON text of an object or array, a JSON-quoted string, or a Python literal of a dict or
    list (`str(dict)`, as the OpenAI Agents SDK and LangChain write them; read with
    `ast.literal_eval`, never evaluated) is decoded; any other string was a string and stays
    one (`"42"` stays text: a scalar's type cannot be told from its text).
    """
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    if text[:1] not in ("{", "[", '"'):
        return raw
    decoded = loads_maybe(text)
    if decoded is text and text[:1] in ("{", "["):
        literal = _python_literal(text)
        decoded = literal if isinstance(literal, (dict, list)) else text
    return raw if decoded is text else decoded


_ERROR_TYPE = r"[A-Z][A-Za-z0-9_]*(?:\.[A-Z][A-Za-z0-9_]*)*"


def error_type_in(text: Any, message: str) -> str | None:
    """The exception type an exported text names right before `message`.

    `Tool failed: TimeoutError: refund_check_timeout` holds the type the error data lost;
    only a CamelCase name directly before the message counts, so prose does not.
    """
    if not isinstance(text, str) or not message:
        return None
    found = re.search(rf"({_ERROR_TYPE})\s*:\s*{re.escape(message)}", text)
    return found.group(1).rsplit(".", 1)[-1] if found else None


def arguments(raw: Any) -> dict[str, Any]:
    """Tool arguments as an object: JSON strings parsed, a bare value kept under `input`."""
    value = loads_maybe(raw) if isinstance(raw, str) else raw
    if isinstance(value, str) and value.startswith("{"):
        value = _python_literal(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    if isinstance(value, dict):
        return value
    return {"input": value}


def _python_literal(text: str) -> Any:
    """LangChain logs tool input as `str(dict)`; literal_eval reads literals only, never code."""
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return text


def opt_id(value: Any) -> str | None:
    """An id as a string; placeholders some exporters write (`<not specified>`) as None."""
    if isinstance(value, list):  # agent_framework writes [run_id, call_id]: the call id is last
        value = value[-1] if value else None
    if value is None or str(value) in _PLACEHOLDERS:
        return None
    return str(value)


def error(raw: Any, default_type: str = "Error") -> dict[str, str]:
    """An error as `{type, message}` (strings `"Type: message"`, dicts, exceptions' text)."""
    if isinstance(raw, dict) and "type" not in raw and ("message" in raw or "data" in raw):
        return {"type": default_type, "message": str(raw.get("message") or raw.get("data") or "")}
    parsed = parse_error(raw)
    if parsed["type"] == "Error" and default_type != "Error":
        parsed["type"] = default_type
    return parsed


def error_text(content: Any) -> dict[str, str] | None:
    """A tool message's content that reports an error: `Error: [Type: ]message`.

    tau-bench's convention, and what chat-only traces show of a failed tool.
    """
    if isinstance(content, str) and content.startswith("Error:"):
        return error(content.removeprefix("Error:").strip(), "ToolError")
    return None


def iso_from_ns(nanos: Any) -> str | None:
    """Unix nanoseconds (int or numeric string) as an ISO 8601 UTC timestamp."""
    try:
        value = int(nanos)
    except (TypeError, ValueError):
        return None
    if value <= 0:
        return None
    seconds, rest = divmod(value, 1_000_000_000)
    when = datetime.fromtimestamp(seconds, tz=timezone.utc).replace(microsecond=rest // 1000)
    return when.isoformat().replace("+00:00", "Z")


def parse_time_key(value: Any) -> float:
    """An ISO 8601 timestamp as epoch seconds for sorting (0.0 when absent or unreadable)."""
    when = parse_time(value)
    if when is None:
        return 0.0
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def iso_from_epoch(value: Any) -> str | None:
    """Epoch seconds, milliseconds or microseconds (guessed by magnitude), or ISO text."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return str(value)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        return None
    scale = 1e9 if value > 1e17 else 1e6 if value > 1e14 else 1e3 if value > 1e11 else 1.0
    return iso_from_ns(int(value / scale * 1e9))
