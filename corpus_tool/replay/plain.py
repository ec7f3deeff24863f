"""Values crossing between agent code and corpus-tool: deep JSON copies, encodable text."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def plain(value: Any) -> Any:
    """A deep copy in JSON shapes (tuples become lists), so later mutation cannot reach it."""
    if isinstance(value, Mapping):
        return {text(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, str):
        return text(value)
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return copy.deepcopy(value)


def text(value: Any) -> str:
    """str(value) that UTF-8 can encode: a lone surrogate from agent code becomes `\\udXXX`.

    Otherwise the report, the results JSON and the JUnit file all fail at their first write.
    """
    shown = str(value)
    try:
        shown.encode("utf-8")
    except UnicodeEncodeError:
        return shown.encode("utf-8", "backslashreplace").decode("utf-8")
    return shown
