"""Judges: semantic opinions on a diff (an LLM, or any scorer), plugged in by name.

A judge is registered in corpus.yaml (`judges: {name: module:callable}`, reviewed
configuration); a command names it (`corpus diff --judge NAME`), a case file never does. It is
called with a `JudgeRequest` and answers one of `better`, `same`, `worse`, `wrong`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from corpus_tool.diff.verdict import OPINIONS
from corpus_tool.errors import UsageError
from corpus_tool.model.json import Json
from corpus_tool.model.trace import Trajectory
from corpus_tool.replay.workers.loader import imported
from corpus_tool.store.corpus import Corpus


@dataclass(frozen=True)
class JudgeRequest:
    """What a judge sees: the case, its input when known, and the two runs (A, then B)."""

    case: str | None
    input: Mapping[str, Json] | None
    base: Trajectory
    head: Trajectory


class Judge(Protocol):
    """Compares B with A: `better`, `same`, `worse` or `wrong`."""

    def __call__(self, request: JudgeRequest) -> str: ...


@contextmanager
def judge_named(corpus: Corpus, name: str) -> Iterator[Judge]:
    """The judge registered under `name` in corpus.yaml, imported from the corpus's repository."""
    registered = corpus.config.judges
    spec = registered.get(name)
    if spec is None:
        known = ", ".join(sorted(registered)) or "none registered"
        raise UsageError(
            f"{corpus.config_path}: no judge named {name!r} ({known}); register it under "
            "`judges:` as name: module:callable"
        )
    with imported(corpus, spec, f"judges.{name}") as judge:
        yield judge


def opinion(judge: Judge, name: str, request: JudgeRequest) -> str:
    """The judge's answer, checked: one of the four words, or a one-line usage error."""
    try:
        said = judge(request)
    except KeyboardInterrupt:
        raise
    except Exception as err:  # a judge's own failure is reported, never taken as an opinion
        raise UsageError(f"judge {name!r} failed: {type(err).__name__}: {err}") from None
    word = said.strip().lower() if isinstance(said, str) else None
    if word not in OPINIONS:
        raise UsageError(f"judge {name!r} answered {said!r}; a judge answers {', '.join(OPINIONS)}")
    return word
