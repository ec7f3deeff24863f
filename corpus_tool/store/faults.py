"""Fault injection: a test can kill a write right after any one of its steps.

Writes call `StepCounter.done(name)` after each step that changes the disk. With
CORPUS_KILL_AFTER_STEP=k in the environment the process ends with `os._exit` right after its k-th
step: no `finally`, no cleanup, exactly what `kill -9` leaves. A test runs a write once for every
k in turn, so each interrupted state is reached on purpose instead of by timing luck.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

ENV = "CORPUS_KILL_AFTER_STEP"
KILLED = 137
"""The exit status of a killed step (128 + SIGKILL, what a shell reports for `kill -9`)."""


class StepCounter:
    """Counts the steps of one command; ends the process after the k-th when asked to."""

    def __init__(self, kill_after: int | None = None) -> None:
        self._kill_after = kill_after
        self.count = 0

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> StepCounter:
        """A counter that kills after CORPUS_KILL_AFTER_STEP steps (never, when it is unset)."""
        raw = environ.get(ENV, "")
        return cls(int(raw) if raw.isdigit() and int(raw) > 0 else None)

    def done(self, name: str) -> None:
        """A step finished; the process ends here when this is the step to kill after."""
        self.count += 1
        if self.count == self._kill_after:
            os.write(2, f"killed after step {self.count} ({name})\n".encode())
            os._exit(KILLED)


NO_STEPS = StepCounter()
"""A counter that never kills (library callers and tests that inject no fault)."""
