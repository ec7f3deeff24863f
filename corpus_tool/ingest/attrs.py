"""Span attributes: OTLP AnyValue decoding, flattening nested dicts, unflattening `a.0.b` keys.

Every span format here (OTLP/JSON, Jaeger, Phoenix, Langfuse) ends as a flat
`{dotted.key: value}` dict, so the GenAI and OpenInference mappings read one shape.
"""

from __future__ import annotations

import re
from typing import Any

_INT = re.compile(r"^-?\d+$")


def any_value(value: Any) -> Any:
    """An OTLP JSON AnyValue (`{"stringValue": ...}`, `{"arrayValue": {...}}`, ...) decoded."""
    if not isinstance(value, dict) or len(value) != 1:
        return value if not isinstance(value, dict) or value else None
    ((kind, inner),) = value.items()
    if kind == "intValue":
        return int(inner) if isinstance(inner, (int, str)) and _INT.match(str(inner)) else inner
    if kind in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        return inner
    if kind == "arrayValue":
        return [any_value(v) for v in (inner or {}).get("values", [])]
    if kind == "kvlistValue":
        return key_values((inner or {}).get("values", []))
    return value


def key_values(items: Any) -> dict[str, Any]:
    """An OTLP `[{key, value: AnyValue}]` list as a dict."""
    if isinstance(items, dict):
        return dict(items)
    out: dict[str, Any] = {}
    for item in items or []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = any_value(item.get("value"))
    return out


def flatten(nested: Any, prefix: str = "") -> dict[str, Any]:
    """Nested attribute dicts (Phoenix writes `{"llm": {"model_name": ...}}`) as dotted keys.

    Lists of dicts flatten with their index (`llm.input_messages.0.message.role`); lists of
    scalars stay lists, as OTLP array attributes do.
    """
    if not isinstance(nested, dict):
        return {prefix: nested} if prefix else {}
    out: dict[str, Any] = {}
    for key, value in nested.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            out.update(flatten(value, name))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for index, item in enumerate(value):
                out.update(flatten(item, f"{name}.{index}"))
        else:
            out[name] = value
    return out


def indexed(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """`prefix.N.rest` keys as a list of nested dicts, ordered by N (`gen_ai.prompt.0.role`)."""
    head = prefix + "."
    groups: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(head):
            continue
        index, _, rest = key[len(head) :].partition(".")
        if not index.isdigit() or not rest:
            continue
        _set(groups.setdefault(int(index), {}), rest.split("."), value)
    return [_listify(groups[i]) for i in sorted(groups)]


def _set(target: dict[str, Any], path: list[str], value: Any) -> None:
    for part in path[:-1]:
        child = target.get(part)
        if not isinstance(child, dict):
            child = target[part] = {}
        target = child
    target[path[-1]] = value


def _listify(node: Any) -> Any:
    """Dicts whose keys are all digits become lists (the unflattened `tool_calls.0`)."""
    if not isinstance(node, dict):
        return node
    if node and all(k.isdigit() for k in node):
        return [_listify(node[k]) for k in sorted(node, key=int)]
    return {k: _listify(v) for k, v in node.items()}


def take(attrs: dict[str, Any], *prefixes: str) -> dict[str, Any]:
    """The attributes not under any of `prefixes`: what a mapping left for `extra`."""
    return {
        k: v for k, v in attrs.items() if not any(k == p or k.startswith(p + ".") for p in prefixes)
    }
