"""`corpus gate --model live --repeat auto`: attempts in rounds, a case stopped as soon as its
verdict can no longer change.

Each round replays the cases still open ROUND more times on each side (the last round fewer,
up to --max-repeat). After a round, a case is settled when every way its remaining attempts
could come out (each side's passes from none to all of them) gives the verdict that
`gate.live` would give at --max-repeat attempts: the verdict is then already the fixed-K one.
This is the group-sequential rule whose alpha spending puts all of gate.alpha on the final
look (deterministic curtailment): an early stop never changes a verdict, so the false-block
rate is the fixed-K test's, at most gate.alpha per case. With `gate.correction: holm` a
case's level depends on the other cases, so no case stops early.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from corpus_tool.gate.live import LiveVerdict, Tally, decide, is_live, tally
from corpus_tool.model.config import GateSection
from corpus_tool.model.results import CaseOutcome, LiveUsage, Results, Verdict

ROUND = 2
"""Attempts per side in each round of --repeat auto."""
MAX_REPEAT = 10
"""--max-repeat's default: the attempts per side --repeat auto stops at."""


def final_verdict(base: Tally, head: Tally, settings: GateSection) -> LiveVerdict:
    """The verdict of one case judged alone (per-case level)."""
    return decide({"case": (base, head)}, settings).cases["case"].verdict


def settled(base: Tally, head: Tally, max_k: int, settings: GateSection) -> bool:
    """Whether every completion of both sides to `max_k` attempts gives the same verdict."""
    if settings.correction == "holm":
        return base.k >= max_k and head.k >= max_k
    left_base, left_head = max_k - base.k, max_k - head.k
    seen: set[LiveVerdict] = set()
    for more_base in range(max(0, left_base) + 1):
        for more_head in range(max(0, left_head) + 1):
            done_base = replace(base, passes=base.passes + more_base, k=max(max_k, base.k))
            done_head = replace(head, passes=head.passes + more_head, k=max(max_k, head.k))
            seen.add(final_verdict(done_base, done_head, settings))
            if len(seen) > 1:
                return False
    return True


def still_open(
    base: Results, head: Results, ids: Sequence[str], max_k: int, settings: GateSection
) -> list[str]:
    """The cases of `ids` whose verdict can still change (both sides live, not settled)."""
    base_cases, head_cases = base.by_case(), head.by_case()
    open_ids = []
    for case in ids:
        before, now = base_cases.get(case), head_cases.get(case)
        if before is None or now is None or not (is_live(before) and is_live(now)):
            continue
        if not settled(tally(before), tally(now), max_k, settings):
            open_ids.append(case)
    return open_ids


def merged(before: Results | None, more: Results) -> Results:
    """A side's results after another round: each case's passes and attempts summed, its
    model calls appended (attempts numbered on), the verdict of all its attempts."""
    if before is None:
        return more
    old = before.by_case()
    cases = {c.case: c for c in before.cases}
    for case in more.cases:
        cases[case.case] = _added(old[case.case], case) if case.case in old else case
    ordered = tuple(cases[k] for k in sorted(cases))
    counts = Counter(c.verdict.value for c in ordered)
    summary: Mapping[str, int] = {
        "total": len(ordered),
        **{v.value: counts.get(v.value, 0) for v in Verdict},
    }
    return replace(before, cases=ordered, summary=summary, live=more.live)


def _added(first: CaseOutcome, more: CaseOutcome) -> CaseOutcome:
    if not (is_live(first) and is_live(more)):
        return more
    attempts = (first.attempts or 0) + (more.attempts or 0)
    passes = (first.passes or 0) + (more.passes or 0)
    shown = first if first.verdict is not Verdict.PASSED else more
    verdict = shown.verdict  # none passed: the first attempt that failed says why
    if passes == attempts:
        verdict = Verdict.PASSED
    elif passes:
        verdict = Verdict.FLAKY
    return replace(
        shown,
        verdict=verdict,
        attempts=attempts,
        passes=passes,
        k=attempts,
        live=_calls(first.live, more.live, first.attempts or 0),
        runs=first.runs
        + tuple(replace(r, attempt=r.attempt + (first.attempts or 0)) for r in more.runs),
        duration_ms=round(first.duration_ms + more.duration_ms, 2),
    )


def _calls(first: LiveUsage | None, more: LiveUsage | None, offset: int) -> LiveUsage | None:
    if first is None or more is None:
        return first or more
    later = tuple(replace(c, attempt=c.attempt + offset) for c in more.calls)
    return replace(
        first,
        input_tokens=first.input_tokens + more.input_tokens,
        output_tokens=first.output_tokens + more.output_tokens,
        model_ms=round(first.model_ms + more.model_ms, 2),
        calls=first.calls + later,
    )
