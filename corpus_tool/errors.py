"""The one error family: every message says what went wrong and what to do next."""

from __future__ import annotations

from pathlib import Path


class CorpusError(Exception):
    """A problem the user can fix; the CLI prints it on one line and exits 2."""

    exit_code = 2

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.message}"


class UsageError(CorpusError):
    """The command line asks for something impossible (bad option, unknown case, no corpus)."""


class InputError(CorpusError):
    """An input file cannot be read, parsed or understood."""


class IncompleteError(InputError):
    """An incident lacks facts a regression case needs; `problems` lists every one."""

    def __init__(self, path: Path | str, problems: list[str], hint: str | None = None):
        summary = "; ".join(problems[:5]) + (
            f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
        )
        super().__init__(
            f"incomplete incident ({len(problems)} problem{'s' if len(problems) != 1 else ''}): "
            f"{summary}. {hint or 'Fix the export'}, "
            "or pass --allow-incomplete to keep it as known_unknown",
            path,
        )
        self.problems = problems


class BusyError(CorpusError):
    """Another process holds the lock of what this command would write; rerun after it."""


class AgentFailed(CorpusError):
    """The agent could not replay what it was given at all (it crashed, hung, exited, broke the
    entrypoint contract): what `check` reports as an ERROR verdict, so exit 1, not 2."""

    exit_code = 1
