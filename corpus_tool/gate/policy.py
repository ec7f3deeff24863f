"""The gate's policy: two results documents (base, head) in, one decision per case out.

| base      | head           | kind           | blocks              |
| passed    | failed, error  | regression     | yes, unless waived  |
| (none)    | failed, error  | new_failure    | yes, unless waived  |
| failed    | failed, error  | still_failing  | no: not this change |
| failed    | passed         | newly_passing  | no                  |
| passed    | passed         | passing        | no                  |
| any       | known_unknown, skipped | not_counted | never          |

"(none)": the case is new, or the base side could not count it (known_unknown, skipped, or an
error: a failure is not known to predate the change when the base could not run the case).
Waivers come from the head side and are judged for `today`; an error is never waived.
A case is waived only when its waivers name every failed check: one that names some of them
waives nothing, and the reports say which checks it covers and which no waiver does.

A case the change itself puts out of counting (`tier: archive`, `status: retired` or
`known_unknown` on the head where the base counted it) is not counted, like any such case, and
marked `silenced` by this change in every report: the reviewer approves it, as a waiver the
change adds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from corpus_tool.model.waiver import Waiver
from corpus_tool.waivers.book import Book, Broken, book_from_entries, excusing, unused_in

FAILING = ("failed", "error", "flaky")  # flaky: a live case some --repeat attempts failed
COUNTED = ("passed", "failed", "error", "waived", "flaky")
SILENT = {"tier": ("archive",), "status": ("retired", "known_unknown")}
"""expected.yaml values that keep a case out of counting, by field."""
DEFAULTS = {"tier": "fast", "status": "active"}
KINDS = (
    "regression",
    "new_failure",
    "still_failing",
    "newly_passing",
    "passing",
    "not_counted",
)


@dataclass(frozen=True)
class Flip:
    """An expected.yaml field the change under review set to a value that stops the case
    from being counted (`tier: fast` on the base, `tier: archive` on the head)."""

    field: str  # tier | status
    base: str
    head: str

    def shown(self) -> str:
        return f"{self.field} {self.head} (was {self.base})"

    def as_dict(self) -> dict[str, str]:
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
    base: str | None  # the base side's verdict, before waivers; None when it has no verdict
    head: str  # the head side's verdict with the head's waivers applied
    kind: str
    blocks: bool
    why: str  # the head's failure in one line: divergence first, checks failed
    failed_checks: tuple[str, ...] = ()
    divergence: Mapping[str, Any] | None = None
    waived_by: tuple[Waiver, ...] = ()  # waivers naming a failed check; they waive only if all
    note: str = ""  # e.g. why the base side has no verdict
    silenced: tuple[Flip, ...] = ()  # what this change set to keep the case from counting
    covers: tuple[Cover, ...] = ()  # each failed check of a failure and who names it

    @property
    def uncovered(self) -> tuple[str, ...]:
        """The failed checks no waiver names: why a case some waiver names still fails."""
        return tuple(c.check for c in self.covers if not c.waivers)


@dataclass(frozen=True)
class Change:
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
    changed_waivers: tuple[Change, ...]
    expired: tuple[Waiver, ...]
    broken: tuple[Broken, ...]
    unused: tuple[Waiver, ...]
    rates: Mapping[str, Mapping[str, Rate]]  # side -> tier -> rate

    @property
    def blocked(self) -> bool:
        return any(r.blocks for r in self.rows)

    def of_kind(self, kind: str) -> list[Row]:
        return [r for r in self.rows if r.kind == kind]

    def waivers_used(self) -> list[Waiver]:
        """Every waiver that excused a case, once, by id."""
        used = {w.id: w for r in self.rows if r.head == "waived" for w in r.waived_by}
        return [used[k] for k in sorted(used)]

    def silenced(self) -> list[Row]:
        """Cases this change put out of counting (archive, retired, known_unknown)."""
        return [r for r in self.rows if r.silenced]

    def change_of(self, waiver: Waiver) -> str | None:
        """`added` or `extended` when this change did that to the waiver."""
        return next((c.how for c in self.changed_waivers if c.waiver.id == waiver.id), None)


def judge(
    base: Mapping[str, Any],
    head: Mapping[str, Any],
    today: date,
    removed: Iterable[str] = (),
) -> Decision:
    """Base against head, case by case; `removed`: cases the change deletes (from git)."""
    book = book_from_entries(head.get("waivers") or [], today)
    base_cases = {c["case"]: c for c in base["cases"]}
    head_cases = {c["case"]: c for c in head["cases"]}
    rows = tuple(_row(base_cases.get(k), head_cases[k], book) for k in sorted(head_cases))
    gone = tuple(sorted(set(removed) - set(head_cases)))
    unmatched = tuple(sorted(set(base_cases) - set(head_cases) - set(gone)))
    return Decision(
        rows=rows,
        removed=gone,
        unmatched=unmatched,
        changed_waivers=tuple(_changed(base.get("waivers") or [], book, today)),
        expired=book.expired,
        broken=book.broken,
        unused=tuple(unused_in(book, head_cases.values())),
        rates={"base": _rates(base["cases"]), "head": _rates(head["cases"])},
    )


def raw_verdict(case: Mapping[str, Any]) -> str:
    """A case's verdict before any waiver: a waived case failed."""
    verdict = str(case["verdict"])
    return "failed" if verdict == "waived" else verdict


def _row(base: Mapping[str, Any] | None, head: Mapping[str, Any], book: Book) -> Row:
    before = raw_verdict(base) if base is not None else None
    now = raw_verdict(head)
    failed = tuple(str(c) for c in head.get("failed_checks") or ())
    waived_by: tuple[Waiver, ...] = ()
    if now == "failed":
        covered, naming = excusing(failed, book.of(str(head["case"])))
        now, waived_by = ("waived" if covered else now), naming
    kind, note = _kind(before, now, base)
    blocks = kind in ("regression", "new_failure") and now in FAILING
    return Row(
        case=str(head["case"]),
        tier=str(head.get("tier") or "fast"),
        base=before,
        head=now,
        kind=kind,
        blocks=blocks,
        why=failure_line(head),
        failed_checks=failed,
        divergence=head.get("divergence"),
        waived_by=waived_by,
        note=note,
        silenced=_silenced(base, head) if kind == "not_counted" else (),
        covers=tuple(Cover(c, tuple(w for w in waived_by if w.names(c))) for c in failed)
        if now in ("failed", "waived")
        else (),
    )


def _kind(before: str | None, now: str, base: Mapping[str, Any] | None) -> tuple[str, str]:
    if now in ("known_unknown", "skipped"):
        return "not_counted", ""
    failing = now in (*FAILING, "waived")
    if before == "passed":
        return ("regression" if failing else "passing"), ""
    if before == "failed":
        return ("still_failing" if failing else "newly_passing"), ""
    note = _no_base(before, base)
    if before == "error" and not failing:
        return "newly_passing", note
    return ("new_failure" if failing else "passing"), note


def _silenced(base: Mapping[str, Any] | None, head: Mapping[str, Any]) -> tuple[Flip, ...]:
    """The fields the change set to keep a case from counting that the base counted."""
    if base is None or any(_value(base, f) in quiet for f, quiet in SILENT.items()):
        return ()
    return tuple(
        Flip(field, _value(base, field), _value(head, field))
        for field, quiet in SILENT.items()
        if _value(head, field) in quiet
    )


def _value(case: Mapping[str, Any], field: str) -> str:
    return str(case.get(field) or DEFAULTS[field])


def _no_base(before: str | None, base: Mapping[str, Any] | None) -> str:
    if before is None:
        return "new case: not on the base side"
    if before == "error":
        return f"the base side could not run it: {(base or {}).get('error')}"
    return f"{before} on the base side: not counted there"


def failure_line(case: Mapping[str, Any]) -> str:
    """Why a case failed, root cause first (as `corpus replay` says it); empty for a pass."""
    if case.get("verdict") == "error":
        return f"error: {case.get('error')}"
    parts: list[str] = []
    divergence = case.get("divergence")
    if divergence:
        parts.append(f"{divergence['kind']} at step {divergence['step']}")
    failed = [c for c in case.get("failed_checks") or () if not str(c).startswith("replay.")]
    if failed:
        parts.append("failed: " + ", ".join(failed))
    if "replay.determinism" in (case.get("failed_checks") or ()):
        parts.append("nondeterministic across --repeat")
    why = ", ".join(parts)
    reached = case.get("not_reached") or ()
    return f"{why}; {len(reached)} not reached" if reached and why else why


def _changed(base_entries: Sequence[Mapping[str, Any]], book: Book, today: date) -> list[Change]:
    before = book_from_entries(base_entries, today)
    old = {w.id: w for w in (*before.active, *before.expired)}
    found: list[Change] = []
    for waiver in sorted((*book.active, *book.expired), key=lambda w: w.id):
        was = old.get(waiver.id)
        if was is None:
            found.append(Change(waiver, "added"))
        elif _extends(was, waiver):
            found.append(Change(waiver, "extended"))
    return found


def _extends(was: Waiver, now: Waiver) -> bool:
    return (
        now.expires > was.expires or now.case != was.case or not set(now.checks) <= set(was.checks)
    )


def _rates(cases: Iterable[Mapping[str, Any]]) -> dict[str, Rate]:
    counts: dict[str, list[int]] = {}
    for case in cases:
        if case["verdict"] not in COUNTED:
            continue
        tally = counts.setdefault(str(case.get("tier") or "fast"), [0, 0])
        tally[0] += case["verdict"] == "passed"
        tally[1] += 1
    return {tier: Rate(p, n) for tier, (p, n) in sorted(counts.items())}
