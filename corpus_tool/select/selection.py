"""From changed files to selected cases, each with the reasons that selected it.

Pure: the git work happens elsewhere, and comes in as a CaseIndex (the head side's cases and
their facts) and a `base_blob` reader (files as they were at the merge base).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from corpus_tool.select.facts import ExpectedFacts, TraceFacts, trace_facts, waiver_case
from corpus_tool.select.git import ChangedFile
from corpus_tool.select.layout import Layout
from corpus_tool.select.rules import Impact, Rule

BlobReader = Callable[[str], bytes | None]
"""A repository path -> its bytes on one side (None when the file is absent there)."""


@dataclass(frozen=True)
class Reason:
    """Why a case is selected: a changed file and the rule that maps it to the case."""

    path: str
    status: str
    rule: str
    old_path: str | None = None

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"path": self.path, "status": self.status, "rule": self.rule}
        if self.old_path is not None:
            found["old_path"] = self.old_path
        return found

    def __str__(self) -> str:
        moved = f" from {self.old_path}" if self.old_path else ""
        return f"{self.path} ({self.status}{moved}): {self.rule}"


@dataclass(frozen=True)
class Removed:
    """A case the change deletes: reported, never silently dropped."""

    id: str
    reasons: tuple[Reason, ...]
    tools: tuple[str, ...] = ()  # what its trace called at the merge base

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reasons": [r.as_dict() for r in self.reasons],
            "tools": list(self.tools),
        }


@dataclass(frozen=True)
class Target:
    """What one rule selects: everything, ids, tools called, tags, or id globs."""

    all: bool = False
    ids: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    id_globs: tuple[str, ...] = ()


class CaseIndex:
    """The head side's cases; their trace and expected.yaml facts are fetched in bulk, once."""

    def __init__(
        self,
        ids: Iterable[str],
        traces: Callable[[list[str]], Mapping[str, TraceFacts]],
        expecteds: Callable[[list[str]], Mapping[str, ExpectedFacts]],
        head_blob: BlobReader,
    ) -> None:
        self.ids = tuple(sorted(set(ids)))
        self._known = frozenset(self.ids)
        self._fetch_traces = traces
        self._fetch_expecteds = expecteds
        self._traces: dict[str, TraceFacts] = {}
        self._expecteds: dict[str, ExpectedFacts] = {}
        self.head_blob = head_blob

    def __contains__(self, case_id: object) -> bool:
        return case_id in self._known

    def traces(self, ids: Iterable[str]) -> dict[str, TraceFacts]:
        """Trace facts of these cases."""
        return _fetched(self._traces, self._fetch_traces, ids)

    def expecteds(self, ids: Iterable[str]) -> dict[str, ExpectedFacts]:
        """expected.yaml facts of these cases."""
        return _fetched(self._expecteds, self._fetch_expecteds, ids)


F = TypeVar("F")


def _fetched(
    cache: dict[str, F], fetch: Callable[[list[str]], Mapping[str, F]], ids: Iterable[str]
) -> dict[str, F]:
    """Facts of these cases, fetching in one call only those not fetched before."""
    wanted = list(ids)
    missing = [c for c in wanted if c not in cache]
    if missing:
        cache.update(fetch(missing))
    return {c: cache[c] for c in wanted}


@dataclass(frozen=True)
class Selection:
    """Selected case ids with their reasons, and the cases the change removes."""

    cases: CaseIndex
    everyone: tuple[Reason, ...] = ()  # reasons that select every case
    specific: Mapping[str, tuple[Reason, ...]] = field(default_factory=dict)
    removed: tuple[Removed, ...] = ()
    changes: tuple[ChangedFile, ...] = ()
    quiet: tuple[Reason, ...] = ()
    """For each changed file that selects no case, the rules that decided so, and why."""

    def selected(self) -> list[str]:
        """The selected ids, sorted."""
        return list(self.cases.ids) if self.everyone else sorted(self.specific)

    def reasons(self, case_id: str, shared: int | None = None) -> tuple[Reason, ...]:
        """Why a case is selected: its own reasons, then (up to `shared` of) the every-case ones."""
        return self.specific.get(case_id, ()) + self.everyone[:shared]

    def reason_count(self, case_id: str) -> int:
        return len(self.specific.get(case_id, ())) + len(self.everyone)


def select(
    changes: Iterable[ChangedFile],
    layout: Layout,
    impact: Impact,
    cases: CaseIndex,
    base_blob: BlobReader,
) -> Selection:
    """Apply the built-in corpus rules and corpus.yaml's impact rules to every change."""
    changes = tuple(changes)
    everyone: list[Reason] = []
    specific: dict[str, list[Reason]] = {}
    gone: dict[str, list[Reason]] = {}  # cases whose files changed and that no longer exist
    quiet: list[Reason] = []
    for change in changes:
        silent: list[Reason] = []
        targets = _targets(change, layout, impact, cases, base_blob)
        for reason, target in targets:
            if target.all:
                everyone.append(reason)
                continue
            found = _resolve(target, cases)
            for case_id in found:
                specific.setdefault(case_id, []).append(reason)
            if not found:
                why = _nothing(target)
                silent.append(replace(reason, rule=f"{reason.rule}: {why}") if why else reason)
        vanished = _vanished(change, layout, cases)
        for case_id in vanished:
            gone.setdefault(case_id, []).append(
                Reason(change.path, change.status, "case file", change.old_path)
            )
        if len(silent) == len(targets):  # every rule the file meets selects nothing
            quiet.extend(silent)
    removed = tuple(_removed(gone, layout, base_blob))
    frozen = {k: tuple(dict.fromkeys(v)) for k, v in specific.items()}
    return Selection(
        cases,
        tuple(dict.fromkeys(everyone)),
        frozen,
        removed,
        changes,
        tuple(dict.fromkeys(quiet)),
    )


def _nothing(target: Target) -> str:
    """Why a rule's target holds no case of the head side ("" when the rule names none)."""
    said = []
    if target.ids:
        said.append(f"case {', '.join(sorted(target.ids))} does not exist (any more)")
    if target.tools:
        said.append(f"no case calls {', '.join(sorted(target.tools))}")
    if target.tags:
        said.append(f"no case is tagged {', '.join(sorted(target.tags))}")
    if target.id_globs:
        said.append(f"no case id matches {', '.join(target.id_globs)}")
    return "; ".join(said)


def _vanished(change: ChangedFile, layout: Layout, cases: CaseIndex) -> set[str]:
    named = {_case_of(p, change, layout) for p in (change.path, change.old_path) if p}
    return {case_id for case_id in named if case_id is not None and case_id not in cases}


def _targets(
    change: ChangedFile, layout: Layout, impact: Impact, cases: CaseIndex, base_blob: BlobReader
) -> list[tuple[Reason, Target]]:
    def because(rule: str) -> Reason:
        return Reason(change.path, change.status, rule, change.old_path)

    found: list[tuple[Reason, Target]] = []
    # A rename is matched at its new path; its old path still counts like a deleted file.
    for path in filter(None, (change.path, change.old_path)):
        for rule, target in _builtin(path, change, layout, cases, base_blob):
            found.append((because(rule), target))
        for matched in impact.matching(path):
            found.append((because(matched.describe()), _rule_target(matched)))
    if not found and impact.unmapped == "all":
        found.append((because("impact.unmapped: all (no rule names this file)"), Target(all=True)))
    elif not found:
        found.append((because("impact.unmapped: none (no rule names this file)"), Target()))
    return found


def _builtin(
    path: str, change: ChangedFile, layout: Layout, cases: CaseIndex, base_blob: BlobReader
) -> list[tuple[str, Target]]:
    if layout.is_global(path):
        return [("global file: selects every case", Target(all=True))]
    case_id = _case_of(path, change, layout)
    if case_id is not None:
        rule = "case submodule" if change.link else "case file"
        return [(rule, Target(ids=frozenset({case_id})))]
    if layout.is_waiver(path):
        named = _waiver_cases(path, change, cases, base_blob)
        return [(f"waiver of {case}", Target(ids=frozenset({case}))) for case in sorted(named)]
    return []


def _case_of(path: str, change: ChangedFile, layout: Layout) -> str | None:
    """The case a changed path belongs to; a submodule may be the case directory itself."""
    return layout.case_of_link(path) if change.link else layout.case_of(path)


def _waiver_cases(
    path: str, change: ChangedFile, cases: CaseIndex, base_blob: BlobReader
) -> set[str]:
    # The case named now and the case named before: editing `case:` affects both.
    named: set[str] = set()
    for raw in (cases.head_blob(path), base_blob(change.old_path or path)):
        case = waiver_case(raw) if raw is not None else None
        if case is not None:
            named.add(case)
    return named


def _rule_target(rule: Rule) -> Target:
    return Target(rule.all, frozenset(), frozenset(rule.tools), frozenset(rule.tags), rule.cases)


def _resolve(target: Target, cases: CaseIndex) -> list[str]:
    found = [case_id for case_id in target.ids if case_id in cases]
    if target.id_globs:
        found += [c for c in cases.ids if any(fnmatch.fnmatchcase(c, g) for g in target.id_globs)]
    if target.tools:
        found += [c for c, f in cases.traces(cases.ids).items() if _calls(f, target.tools)]
    if target.tags:
        found += [c for c, f in cases.expecteds(cases.ids).items() if _tagged(f, target.tags)]
    return sorted(set(found))


def _calls(facts: TraceFacts, tools: frozenset[str]) -> bool:
    # A trace we cannot read may call anything: select it rather than miss it.
    return not facts.readable or not tools.isdisjoint(facts.tools)


def _tagged(facts: ExpectedFacts, tags: frozenset[str]) -> bool:
    return not facts.readable or not tags.isdisjoint(facts.tags)


def _removed(
    touched: Mapping[str, list[Reason]], layout: Layout, base_blob: BlobReader
) -> Iterable[Removed]:
    for case_id in sorted(touched):
        raw = base_blob(layout.case_path(case_id, "trace.yaml"))
        tools = trace_facts(raw).tools if raw is not None else ()
        yield Removed(case_id, tuple(dict.fromkeys(touched[case_id])), tools)
