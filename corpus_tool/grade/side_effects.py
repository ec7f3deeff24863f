"""`expect.side_effects`: exactly N effects of each listed kind (from `side_effect` events)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corpus_tool.grade.registry import Check, TableGrader
from corpus_tool.grade.result import CheckResult, verdict
from corpus_tool.grade.run import Run, plural


def count(spec: list[Mapping[str, Any]], run: Run) -> CheckResult:
    """For each `{type, count}`, the run produced exactly `count` effects of that kind."""
    effects = run.of_type("side_effect")
    problems, seen, counts = [], [], {}
    for item in spec:
        kind, want = str(item.get("type")), int(item.get("count", 0))
        at = [seq for seq, e in effects if e.get("kind") == kind]
        where = f" (seq {', '.join(map(str, at))})" if at else ""
        counts[kind] = len(at)
        seen.append(f"{kind}: {plural(len(at), 'effect')}{where}")
        if len(at) != want:
            problems.append(f"{kind}: {plural(len(at), 'effect')}{where}, expected exactly {want}")
    ok = "; ".join(seen) or "no counts listed"
    return verdict("side_effects.count", problems, ok, counts=counts)


GRADER = TableGrader(
    "side_effects", (Check(None, "side_effects.count", lambda s, r: count(list(s or []), r)),)
)
