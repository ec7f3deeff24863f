"""A recorded tool error, raised again inside a framework as the exception the tool raised.

Frameworks show a failed tool to the model through the exception itself: its class name, its
`str` or its `repr` (LangGraph's `Error: LookupError('no station x9')`, a failure formatter
naming the type). The recording holds the type's name and the message, so the rebuilt
exception has both: a class of that name (a subclass of the builtin exception when the name is
one, so `except TimeoutError` still catches it) whose only argument is the message. It is also
a `ToolError`, for agent code that catches the runtime's error.
"""

from __future__ import annotations

import builtins
import functools
from typing import cast

from corpus_tool.replay.runtime import ToolError


class RecordedToolError(ToolError):
    """Base of every rebuilt class: `str()` is the recorded message, as the tool's was."""

    def __init__(self, message: str, type: str = "Error", seq: int | None = None):
        Exception.__init__(self, message)  # args == (message,): str and repr as the original
        self.type = type
        self.message = message
        self.seq = seq


def rebuilt(err: ToolError) -> RecordedToolError:
    """The exception `err` was recorded from: same class name, same message."""
    return _class(err.type)(err.message, err.type, err.seq)


@functools.lru_cache(maxsize=256)
def _class(name: str) -> type[RecordedToolError]:
    base = getattr(builtins, name, None)
    if isinstance(base, type) and issubclass(base, Exception):
        made = type(name, (RecordedToolError, base), {"__module__": "builtins"})
    else:
        made = type(name, (RecordedToolError,), {"__module__": __name__})
    return cast("type[RecordedToolError]", made)
