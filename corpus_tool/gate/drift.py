"""`corpus status`: what the corpus holds, what drifted from corpus.yaml, which waivers need care.

Drift is information for reviewers, not a failure: a case recorded under another prompt
version, model or tool-schema hash than corpus.yaml's current ones still replays; the reader
decides whether to re-record it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from corpus_tool.errors import InputError
from corpus_tool.io import files
from corpus_tool.model.results import Results
from corpus_tool.model.trace import Recorded
from corpus_tool.model.waiver import Waiver
from corpus_tool.store.corpus import Corpus
from corpus_tool.waivers.book import Book, unused

SOON_DAYS = 14
"""Waivers expiring within this many days are listed."""


@dataclass(frozen=True)
class Drift:
    """One recorded fact that differs from corpus.yaml's current one."""

    case: str
    fact: str  # prompt_version | model | tool_schema_hash
    recorded: str
    current: str

    def as_dict(self) -> dict[str, str]:
        return {
            "case": self.case,
            "fact": self.fact,
            "recorded": self.recorded,
            "current": self.current,
        }


@dataclass(frozen=True)
class CorpusStatus:
    """Counts by tier and status, drift, and waivers needing care."""

    counts: Mapping[str, Mapping[str, int]]  # tier -> status -> cases
    unreadable: tuple[str, ...]
    drift: tuple[Drift, ...]
    expiring: tuple[Waiver, ...]
    expired: tuple[Waiver, ...]
    unused: tuple[Waiver, ...] | None  # None: no results given


def corpus_status(
    corpus: Corpus, book: Book, today: date, results: Results | None = None
) -> CorpusStatus:
    """The status of the corpus on `today`; `results`: a results document, for unused waivers."""
    counts: Counter[tuple[str, str]] = Counter()
    unreadable: list[str] = []
    drift: list[Drift] = []
    for case in corpus.case_ids():
        expected, trace = _doc(corpus, case, "expected"), _doc(corpus, case, "trace")
        if expected is None or trace is None:
            unreadable.append(case)
            continue
        counts[(str(expected.get("tier", "fast")), str(expected.get("status", "active")))] += 1
        drift.extend(drifted(case, _recorded(trace), corpus))
    soon = today + timedelta(days=SOON_DAYS)
    return CorpusStatus(
        counts=_nested(counts),
        unreadable=tuple(unreadable),
        drift=tuple(drift),
        expiring=tuple(w for w in book.active if w.expires <= soon),
        expired=book.expired,
        unused=None if results is None else tuple(unused(book, results.cases)),
    )


def _doc(corpus: Corpus, case: str, kind: str) -> Mapping[str, object] | None:
    """A case file as parsed, unchecked: status counts a schema-invalid case all the same."""
    path = corpus.case_dir(case) / f"{kind}.yaml"
    try:
        data = files.parse_yaml(files.read_bytes(path, within=corpus.root), path)
    except InputError:
        return None
    return data if isinstance(data, dict) else None


def _recorded(trace: Mapping[str, object]) -> Recorded:
    block = trace.get("recorded")
    return Recorded.from_doc(block if isinstance(block, Mapping) else {})


def drifted(case: str, recorded: Recorded, corpus: Corpus) -> list[Drift]:
    """What a trace's `recorded` block says that corpus.yaml's `agent` no longer does."""
    found: list[Drift] = []
    was = recorded.agent.prompt_version
    prompt = corpus.config.agent.prompt_version
    if prompt and was and was != prompt:
        found.append(Drift(case, "prompt_version", str(was), str(prompt)))
    models = corpus.config.agent.models
    if models:
        for model in recorded.models:
            if str(model) not in models:
                found.append(Drift(case, "model", str(model), ", ".join(models)))
    tools = corpus.config.agent.tool_schema_hash
    seen = recorded.tool_schema_hash
    if tools and seen and seen != tools:
        found.append(Drift(case, "tool_schema_hash", str(seen), str(tools)))
    return found


def _nested(counts: Counter[tuple[str, str]]) -> dict[str, dict[str, int]]:
    nested: dict[str, dict[str, int]] = {}
    for (tier, state), n in sorted(counts.items()):
        nested.setdefault(tier, {})[state] = n
    return nested
