"""The oracle of minimization: replay a candidate trace, say what its run showed, and whether
that still reproduces the trigger.

`Oracle` is the seam: a function from a trace to an `Symptoms`. `pooled.pooled_oracle` builds
it on replay workers (the agent never runs in this process); tests hand `shrink` their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from corpus_tool.errors import UsageError
from corpus_tool.model.checks import DIVERGENCE_CHECK, WAIVABLE
from corpus_tool.model.events import error_types
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace
from corpus_tool.replay.divergence import KINDS


@dataclass(frozen=True)
class Symptoms:
    """What one replay showed: failing checks, error types, the divergence, the ending."""

    failed_checks: tuple[str, ...] = ()
    error_types: frozenset[str] = frozenset()
    divergence: str | None = None
    terminal: str = "unknown"
    broken: str | None = None
    """Why there is no usable run (the worker timed out or died, the agent broke the entrypoint
    contract): nothing else above is known, and nothing is reproduced."""

    def summary(self) -> str:
        """One line for messages: how the run ended and what it failed."""
        if self.broken is not None:
            return f"no usable replay: {self.broken}"
        failed = ", ".join(self.failed_checks) or "no check"
        errors = ", ".join(sorted(self.error_types)) or "none"
        diverged = f", diverged ({self.divergence})" if self.divergence else ""
        return f"ended {self.terminal}{diverged}, failed {failed}, errors {errors}"


Oracle = Callable[[Trace], Symptoms]


@dataclass(frozen=True)
class Goal:
    """What a candidate must reproduce: a check failing, an error type, a divergence kind, or a
    terminal status."""

    kind: str  # check | error_type | divergence | terminal_status
    value: str

    def holds(self, outcome: Symptoms) -> bool:
        """Whether the run shows it."""
        if self.kind == "check":
            return self.value in outcome.failed_checks
        if self.kind == "error_type":
            return self.value in outcome.error_types
        if self.kind == "divergence":
            return outcome.divergence == self.value
        return outcome.terminal == self.value

    def describe(self) -> str:
        """`check tools.args fails`, `error ZeroDivisionError occurs`, ..."""
        return {
            "check": f"check {self.value} fails",
            "error_type": f"error {self.value} occurs",
            "divergence": f"divergence {self.value}",
            "terminal_status": f"run ends {self.value}",
        }[self.kind]


def reproduces(trigger: Goal, whole: Symptoms, candidate: Symptoms) -> bool:
    """The same failure, not a new one: the candidate shows the trigger, diverges (or not) as
    the whole case did, and fails no check the whole case passed.

    Without the last two, "tools.args fails" would be reproduced by a run that never reaches
    the call at all, or is cut short by an answer the candidate no longer holds.
    """
    return (
        candidate.broken is None
        and trigger.holds(candidate)
        and candidate.divergence == whole.divergence
        and set(candidate.failed_checks) <= set(whole.failed_checks)
    )


def parse_until(text: str) -> Goal:
    """`--until`: a check name, a divergence kind, or else an error type."""
    if text in WAIVABLE and text != "all":
        return Goal("check", text)
    if text in KINDS:
        return Goal("divergence", text)
    if not text.strip() or "." in text or any(c.isspace() for c in text):
        raise UsageError(
            f"--until {text!r}: give a check name ({', '.join(WAIVABLE[1:4])}, ...), "
            f"a divergence kind ({', '.join(KINDS[:3])}, ...) or an error type"
        )
    return Goal("error_type", text)


def default_trigger(trace: Trace, expected: Expected, whole: Symptoms) -> Goal | None:
    """expected.yaml's trigger, else the recorded error type, else the first failing check."""
    declared = expected.trigger
    if declared is not None and declared.error_type:
        return Goal("error_type", declared.error_type)
    if declared is not None and declared.terminal_status:
        return Goal("terminal_status", declared.terminal_status)
    recorded = error_types(trace.events)
    if recorded:
        return Goal("error_type", recorded[-1])
    graded = [c for c in whole.failed_checks if c != DIVERGENCE_CHECK]
    failing = graded or list(whole.failed_checks)
    return Goal("check", failing[0]) if failing else None
