"""Agent code inside corpus-tool: its prints kept out of our output, its errors shown safely."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from typing import TextIO

from corpus_tool.replay.plain import text


class _ToStderr:
    """A stdout for agent code: writes go to stderr; closing it closes nothing of ours."""

    def __init__(self, target: TextIO) -> None:
        self._target = target

    def write(self, text: str) -> int:
        return self._target.write(text)

    def flush(self) -> None:
        self._target.flush()

    def close(self) -> None:
        """Ignored: an agent closing sys.stdout must not silence the report."""

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> object:
        return getattr(self._target, name)


@contextmanager
def agent_stdout() -> Iterator[None]:
    """While agent code runs, its stdout is our stderr.

    `--format json` output and the verdict lines stay parseable whatever the agent prints.
    """
    with redirect_stdout(_ToStderr(sys.stderr)):
        yield


def described(err: BaseException) -> str:
    """str(err) of an agent's exception, which may itself raise (a broken __str__)."""
    try:
        return text(err)
    except Exception:
        return f"<{type(err).__name__} whose str() fails>"
