"""A corpus brought back to a consistent state after interrupted writes, or told what is left.

Every command that writes a corpus (`add`, `forget`, `mv`, `minimize`, `waivers new`) first
finishes an interrupted forget (its journal, erasure.py, or removes one it was killed writing),
then finishes or undoes every interrupted case write whose lock it can take (staging.py), and
removes what a killed `waivers new` left beside its waiver (`waivers/.<id>.yaml.<random>.tmp`,
a complete waiver that `git add -A` would stage). `validate` writes nothing: it reports what an
interrupted write left, and what to run about it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from corpus_tool.io.locks import is_held
from corpus_tool.model.findings import Finding
from corpus_tool.store import erasure, staging
from corpus_tool.store.corpus import Corpus, refuse_outside_links
from corpus_tool.store.faults import NO_STEPS, StepCounter

RULE = "case.interrupted"
FORGET_RULE = "forget.interrupted"
WAIVER_RULE = "waiver.interrupted"
_DONE = {
    "finished": "finished an interrupted write of case",
    "undone": "undid an interrupted write of case",
    "cleaned": "removed what an interrupted write left of case",
}


def _rerun(what: str) -> str:
    return (
        "rerun the interrupted `corpus add` (any `corpus add` or `corpus forget` in this corpus "
        f"{what} first)"
    )


def recover(corpus: Corpus, steps: StepCounter = NO_STEPS) -> list[str]:
    """Finish an interrupted forget, then every interrupted case write; one note for each.

    Refused first (InputError) when corpus.yaml, cases/ or waivers/ is a link out of the
    corpus: every command that writes comes here before it writes anything.
    """
    refuse_outside_links(corpus)
    notes = []
    finished = erasure.finish(corpus, steps)
    if finished is not None:
        notes.append(f"finished an interrupted `corpus forget` ({_counted(finished)})")
    for name, what in staging.recover_all(corpus.cases_dir, steps):
        notes.append(f"{_DONE[what]} {name}")
    for name, _ in staging.recover_all(corpus.waivers_dir, steps):
        notes.append(f"removed what an interrupted `corpus waivers new` left of waivers/{name}")
    return notes


def findings(corpus: Corpus, show: Callable[[Path], str]) -> list[Finding]:
    """What interrupted writes left in the corpus, each with what to run."""
    found = [
        Finding(show(left.path), None, "$", RULE, _message(left))
        for left in staging.leftovers(corpus.cases_dir)
    ]
    found += [
        Finding(show(left.path), None, "$", WAIVER_RULE, _waiver_message(left))
        for left in staging.leftovers(corpus.waivers_dir)
    ]
    journal = corpus.root / erasure.JOURNAL
    lock = corpus.root / erasure.LOCK
    if not is_held(lock):
        found += [
            Finding(show(tmp), None, "$", FORGET_RULE, _JOURNAL_TMP)
            for tmp in erasure.journal_tmps(corpus)
        ]
    if os.path.lexists(journal) and not is_held(lock):
        message = (
            "an interrupted `corpus forget` left its plan; rerun `corpus forget` (with the same "
            "value): it finishes removing what the plan names first. Never re-add those cases"
        )
        found.append(Finding(show(journal), None, "$", FORGET_RULE, message))
    elif os.path.lexists(lock) and not is_held(lock):
        message = "a killed `corpus forget` left its lock; the next `corpus forget` removes it"
        found.append(Finding(show(lock), None, "$", FORGET_RULE, message))
    return found


_JOURNAL_TMP = (
    "the plan a killed `corpus forget` was writing (it removed nothing yet); the next `corpus "
    "forget`, `add` or `waivers new` here removes it. Never commit it"
)


def _waiver_message(left: staging.Leftover) -> str:
    if left.kind == "lock":
        return (
            f"a stale lock of waiver {left.name} left by a killed `corpus waivers new`; the next "
            "writing command removes it"
        )
    return (
        f"a copy of waiver {left.name} left by a killed `corpus waivers new`; the next `corpus "
        "waivers new`, `add` or `forget` here removes it. Never commit it: rerun `corpus waivers "
        "new` if the waiver is still wanted"
    )


def _message(left: staging.Leftover) -> str:
    case = left.name
    if left.kind == "tmp":
        return (
            f"a partial copy left by an interrupted write of case {case}; the next `corpus add` "
            "or `corpus forget` here removes it. Never commit it"
        )
    if left.kind == "new":
        return (
            f"the complete new version of case {case}, not yet in place; {_rerun('puts it there')}"
        )
    if left.kind == "gone":
        return (
            f"case {case}, half removed by an interrupted `corpus forget`; rerun `corpus forget` "
            "to finish it. Never re-add it"
        )
    if left.kind == "lock":
        return f"a stale lock of case {case} left by a killed command; the next write removes it"
    if left.final_exists:
        return f"the previous version of case {case}; {_rerun('removes it')}"
    return (
        f"the previous version of case {case}, reviewed files included, set aside by an "
        f"interrupted write; {_rerun('restores it')}. Never delete it by hand"
    )


def _counted(done: erasure.Erasure) -> str:
    cases, waivers = len(done.cases), len(done.waivers)
    return f"{cases} case{'' if cases == 1 else 's'}, {waivers} waiver{'' if waivers == 1 else 's'}"
