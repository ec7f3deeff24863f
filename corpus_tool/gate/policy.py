"""The gate's policy: two results documents (base, head) in, one decision per case out.

| base      | head           | kind           | blocks              |
| passed    | failed, error  | regression     | yes, unless waived  |
| (none)    | failed, error  | new_failure    | yes, unless waived  |
| failed    | failed, error  | still_failing  | no: not this change |
| failed    | passed         | newly_passing  | no                  |
| passed    | passed         | passing        | no                  |
| any       | known_unknown, skipped | not_counted | never          |
| (recording changed) | any  | not_comparable | never              |

"(none)": the case is new, or the base side could not count it (known_unknown, skipped, or an
error: a failure is not known to predate the change when the base could not run the case).
Waivers come from the head side and are judged for `today`; an error is never waived.
A case is waived only when its waivers name every failed check: one that names some of them
waives nothing, and the reports say which checks it covers and which no waiver does.

A case the change itself puts out of counting (`tier: archive`, `status: retired` or
`known_unknown` on the head where the base counted it) is not counted, like any such case, and
marked `silenced` by this change in every report: the reviewer approves it, as a waiver the
change adds.

A case both sides ran live (`--model live`, passes out of K attempts) is judged by the exact
test of `gate.live` instead: regression, improved, unchanged, insufficient_data,
unreliable_baseline or not_comparable; only a regression blocks, and a waiver covers it as it
covers a recorded one. A case whose recording (trace.yaml) the change edited is
`not_comparable` in either mode: the two sides did not replay the same incident.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date

from corpus_tool.gate.live import (
    ONE_SIDE_LIVE,
    RECORDING_CHANGED,
    LiveCase,
    LiveDecision,
    LiveVerdict,
    Tally,
    decide,
    is_live,
    tally,
)
from corpus_tool.gate.shift import shift_of
from corpus_tool.model.config import GateSection
from corpus_tool.model.divergence import Divergence
from corpus_tool.model.json import JsonObject
from corpus_tool.model.results import FAILING, CaseOutcome, Results, Verdict
from corpus_tool.model.vocabulary import StrEnum, unreachable
from corpus_tool.model.waiver import Broken, Waiver
from corpus_tool.waivers.book import Book, book_from_entries, excusing, unused

COUNTED = frozenset({Verdict.PASSED, Verdict.FAILED, Verdict.ERROR, Verdict.WAIVED, Verdict.FLAKY})
"""The verdicts a pass rate counts (flaky: a live case some --repeat attempts failed)."""
UNCOUNTED = frozenset({Verdict.KNOWN_UNKNOWN, Verdict.SKIPPED})
"""The verdicts that keep a case out of the live test (it is not counted at all)."""
SILENT = {"tier": ("archive",), "status": ("retired", "known_unknown")}
"""expected.yaml values that keep a case out of counting, by field."""


class Kind(StrEnum):
    """What the two sides' verdicts make of a case (the table above)."""

    REGRESSION = "regression"
    NEW_FAILURE = "new_failure"
    STILL_FAILING = "still_failing"
    NEWLY_PASSING = "newly_passing"
    PASSING = "passing"
    NOT_COUNTED = "not_counted"
    IMPROVED = "improved"  # live: head passed significantly more often
    UNCHANGED = "unchanged"  # live: no drop, and a drop of gate.min_detectable would show
    INSUFFICIENT_DATA = "insufficient_data"  # live: too few attempts to tell
    UNRELIABLE_BASELINE = "unreliable_baseline"  # live: the base is too flaky to gate
    NOT_COMPARABLE = "not_comparable"  # other models, tools or recording on the two sides


LIVE_KINDS = {
    LiveVerdict.REGRESSION: Kind.REGRESSION,
    LiveVerdict.IMPROVED: Kind.IMPROVED,
    LiveVerdict.UNCHANGED: Kind.UNCHANGED,
    LiveVerdict.INSUFFICIENT_DATA: Kind.INSUFFICIENT_DATA,
    LiveVerdict.UNRELIABLE_BASELINE: Kind.UNRELIABLE_BASELINE,
    LiveVerdict.NOT_COMPARABLE: Kind.NOT_COMPARABLE,
}
"""The kind of a live case's row, by its verdict."""


BLOCKING = frozenset({Kind.REGRESSION, Kind.NEW_FAILURE})
"""The kinds that block the change while the head fails (not waived)."""


@dataclass(frozen=True)
class Flip:
    """An expected.yaml field the change under review set to a value that stops the case
    from being counted (`tier: fast` on the base, `tier: archive` on the head)."""

    field: str  # tier | status
    base: str
    head: str

    def shown(self) -> str:
        return f"{self.field} {self.head} (was {self.base})"

    def as_dict(self) -> JsonObject:
        return {"field": self.field, "base": self.base, "head": self.head}


@dataclass(frozen=True)
class Cover:
    """One failed check of a case and the active waivers that name it (none: not covered)."""

    check: str
    waivers: tuple[Waiver, ...] = ()


@dataclass(frozen=True)
class Row:
    """One case of the gate: what each side said, what that makes it, and whether it blocks."""

    case: str
    tier: str
    base: Verdict | None  # the base side's verdict, before waivers; None: it has no verdict
    head: Verdict  # the head side's verdict with the head's waivers applied
    kind: Kind
    blocks: bool
    why: str  # the head's failure in one line: divergence first, checks failed
    failed_checks: tuple[str, ...] = ()
    divergence: Divergence | None = None
    waived_by: tuple[Waiver, ...] = ()  # waivers naming a failed check; they waive only if all
    note: str = ""  # e.g. why the base side has no verdict
    silenced: tuple[Flip, ...] = ()  # what this change set to keep the case from counting
    covers: tuple[Cover, ...] = ()  # each failed check of a failure and who names it
    live: LiveCase | None = None  # both sides ran live: the exact test's verdict and numbers

    @property
    def uncovered(self) -> tuple[str, ...]:
        """The failed checks no waiver names: why a case some waiver names still fails."""
        return tuple(c.check for c in self.covers if not c.waivers)


@dataclass(frozen=True)
class WaiverChange:
    """A head waiver the change under review added, or extended (later expiry, more checks,
    another case) over the base side's."""

    waiver: Waiver
    how: str  # added | extended


@dataclass(frozen=True)
class Rate:
    """Passed cases of the counted ones (passed, failed, error, waived) of one tier."""

    passed: int
    counted: int

    @property
    def percent(self) -> float | None:
        return round(100 * self.passed / self.counted, 1) if self.counted else None


@dataclass(frozen=True)
class Decision:
    """The gate's verdict and everything its reports show."""

    rows: tuple[Row, ...]
    removed: tuple[str, ...]
    unmatched: tuple[str, ...]  # in the base results only (file mode): not run on head
    changed_waivers: tuple[WaiverChange, ...]
    expired: tuple[Waiver, ...]
    broken: tuple[Broken, ...]
    unused: tuple[Waiver, ...]
    rates: Mapping[str, Mapping[str, Rate]]  # side -> tier -> rate
    live: LiveDecision | None = None  # the live cases' exact tests and the suite's

    @property
    def suite_blocks(self) -> bool:
        """A suite regression with gate.block_on_suite: true."""
        return bool(self.live and self.live.suite and self.live.suite.blocks)

    @property
    def blocked(self) -> bool:
        return any(r.blocks for r in self.rows) or self.suite_blocks

    def of_kind(self, kind: Kind) -> list[Row]:
        return [r for r in self.rows if r.kind == kind]

    def waivers_used(self) -> list[Waiver]:
        """Every waiver that excused a case, once, by id."""
        used = {w.id: w for r in self.rows if r.head is Verdict.WAIVED for w in r.waived_by}
        return [used[k] for k in sorted(used)]

    def silenced(self) -> list[Row]:
        """Cases this change put out of counting (archive, retired, known_unknown)."""
        return [r for r in self.rows if r.silenced]

    def change_of(self, waiver: Waiver) -> str | None:
        """`added` or `extended` when this change did that to the waiver."""
        return next((c.how for c in self.changed_waivers if c.waiver.id == waiver.id), None)


def judge(
    base: Results,
    head: Results,
    today: date,
    removed: Iterable[str] = (),
    settings: GateSection | None = None,
    changed: Iterable[str] = (),
) -> Decision:
    """Base against head, case by case; `removed`: cases the change deletes (from git);
    `settings`: corpus.yaml's gate section (the live test); `changed`: the cases whose
    recording the change edited."""
    book = book_from_entries(head.waivers, today)
    base_cases, head_cases = base.by_case(), head.by_case()
    edited = frozenset(changed)
    live = _live(base_cases, head_cases, settings or GateSection(), edited)
    if live is not None:
        live = replace(live, shift=shift_of(base, head, live.cases))
    rows = tuple(
        _row(base_cases.get(k), head_cases[k], book, live.cases.get(k) if live else None, edited)
        for k in sorted(head_cases)
    )
    gone = tuple(sorted(set(removed) - set(head_cases)))
    unmatched = tuple(sorted(set(base_cases) - set(head_cases) - set(gone)))
    return Decision(
        rows=rows,
        removed=gone,
        unmatched=unmatched,
        changed_waivers=tuple(_changed(base.waivers, book, today)),
        expired=book.expired,
        broken=book.broken,
        unused=tuple(unused(book, head_cases.values())),
        rates={"base": _rates(base.cases), "head": _rates(head.cases)},
        live=live,
    )


def _live(
    base: Mapping[str, CaseOutcome],
    head: Mapping[str, CaseOutcome],
    settings: GateSection,
    edited: frozenset[str],
) -> LiveDecision | None:
    """The exact test of every case either side ran live that both sides have."""
    pairs: dict[str, tuple[Tally, Tally]] = {}
    known: dict[str, str] = {}
    for case, now in head.items():
        before = base.get(case)
        if before is None or not (is_live(before) or is_live(now)):
            continue
        if before.verdict in UNCOUNTED or now.verdict in UNCOUNTED:
            continue  # known_unknown, skipped: today's rules
        if not (is_live(before) and is_live(now)):
            known[case] = ONE_SIDE_LIVE
        if case in edited:
            known[case] = RECORDING_CHANGED
        pairs[case] = (_tally(before), _tally(now))
    if not pairs:
        return None
    return decide(pairs, settings, known)


def _tally(outcome: CaseOutcome) -> Tally:
    if is_live(outcome):
        return tally(outcome)
    return Tally(int(outcome.raw_verdict is Verdict.PASSED), 1)


def _row(
    base: CaseOutcome | None,
    head: CaseOutcome,
    book: Book,
    live: LiveCase | None,
    edited: frozenset[str],
) -> Row:
    before = base.raw_verdict if base is not None else None
    now = head.raw_verdict
    failed = head.failed_checks
    waived_by: tuple[Waiver, ...] = ()
    if now is Verdict.FAILED or (now is Verdict.FLAKY and live is not None):
        covered, naming = excusing(failed, book.of(head.case))
        now, waived_by = (Verdict.WAIVED if covered else now), naming
    kind, note = _kind(before, now, base)
    if live is not None:  # the exact test decides; the base's own verdict says nothing more
        kind, note = LIVE_KINDS[live.verdict], ""
    elif base is not None and head.case in edited and kind is not Kind.NOT_COUNTED:
        kind, note = Kind.NOT_COMPARABLE, RECORDING_CHANGED
    blocks = kind in BLOCKING and (
        now in FAILING or (live is not None and now is not Verdict.WAIVED)
    )
    return Row(
        case=head.case,
        tier=head.tier,
        base=before,
        head=now,
        kind=kind,
        blocks=blocks,
        why=failure_line(head),
        failed_checks=failed,
        divergence=head.divergence,
        live=live,
        waived_by=waived_by,
        note=note,
        silenced=_silenced(base, head) if kind is Kind.NOT_COUNTED else (),
        covers=tuple(Cover(c, tuple(w for w in waived_by if w.names(c))) for c in failed)
        if now in (Verdict.FAILED, Verdict.WAIVED)
        else (),
    )


def _kind(before: Verdict | None, now: Verdict, base: CaseOutcome | None) -> tuple[Kind, str]:
    """The table of the module docstring: the head's verdict, then what the base said."""
    match now:
        case Verdict.KNOWN_UNKNOWN | Verdict.SKIPPED:
            return Kind.NOT_COUNTED, ""
        case Verdict.FAILED | Verdict.ERROR | Verdict.WAIVED | Verdict.FLAKY | Verdict.STALE:
            failing = True  # flaky: some live --repeat attempts failed; stale: not graded
        case Verdict.PASSED:
            failing = False
        case _:
            unreachable(now)
    if before is Verdict.PASSED:
        return (Kind.REGRESSION if failing else Kind.PASSING), ""
    if before is Verdict.FAILED:
        return (Kind.STILL_FAILING if failing else Kind.NEWLY_PASSING), ""
    note = _no_base(before, base)
    if before is Verdict.ERROR and not failing:
        return Kind.NEWLY_PASSING, note
    return (Kind.NEW_FAILURE if failing else Kind.PASSING), note


def _silenced(base: CaseOutcome | None, head: CaseOutcome) -> tuple[Flip, ...]:
    """The fields the change set to keep a case from counting that the base counted."""
    if base is None or any(_value(base, f) in quiet for f, quiet in SILENT.items()):
        return ()
    return tuple(
        Flip(field, _value(base, field), _value(head, field))
        for field, quiet in SILENT.items()
        if _value(head, field) in quiet
    )


def _value(case: CaseOutcome, field: str) -> str:
    return case.tier if field == "tier" else case.status


def _no_base(before: Verdict | None, base: CaseOutcome | None) -> str:
    if before is None:
        return "new case: not on the base side"
    if before is Verdict.ERROR:
        return f"the base side could not run it: {base.error if base is not None else None}"
    return f"{before} on the base side: not counted there"


def failure_line(case: CaseOutcome) -> str:
    """Why a case failed, root cause first (as `corpus replay` says it); empty for a pass."""
    if case.verdict is Verdict.ERROR:
        return f"error: {case.error}"
    parts: list[str] = []
    if case.divergence:
        parts.append(f"{case.divergence.kind} at step {case.divergence.step}")
    failed = [c for c in case.failed_checks if not c.startswith("replay.")]
    if failed:
        parts.append("failed: " + ", ".join(failed))
    if "replay.determinism" in case.failed_checks:
        parts.append("nondeterministic across --repeat")
    why = ", ".join(parts)
    reached = case.not_reached
    return f"{why}; {len(reached)} not reached" if reached and why else why


def _changed(
    base_entries: Iterable[Waiver | Broken], book: Book, today: date
) -> list[WaiverChange]:
    before = book_from_entries(base_entries, today)
    old = {w.id: w for w in (*before.active, *before.expired)}
    found: list[WaiverChange] = []
    for waiver in sorted((*book.active, *book.expired), key=lambda w: w.id):
        was = old.get(waiver.id)
        if was is None:
            found.append(WaiverChange(waiver, "added"))
        elif _extends(was, waiver):
            found.append(WaiverChange(waiver, "extended"))
    return found


def _extends(was: Waiver, now: Waiver) -> bool:
    return (
        now.expires > was.expires or now.case != was.case or not set(now.checks) <= set(was.checks)
    )


def _rates(cases: Iterable[CaseOutcome]) -> dict[str, Rate]:
    counts: dict[str, list[int]] = {}
    for case in cases:
        if case.verdict not in COUNTED:
            continue
        tally = counts.setdefault(case.tier, [0, 0])
        tally[0] += case.verdict is Verdict.PASSED
        tally[1] += 1
    return {tier: Rate(p, n) for tier, (p, n) in sorted(counts.items())}
