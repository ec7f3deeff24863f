"""What the text report of a run adds for live-model cases: their unmatched tool calls and
provider errors, and what the live model cost the run."""

from __future__ import annotations

from collections.abc import Sequence

from corpus_tool.io import files
from corpus_tool.replay.cases import CaseResult
from corpus_tool.replay.ledger import Totals


def live_details(result: CaseResult) -> list[str]:
    """A live case's unmatched calls and provider errors, for its details."""
    live = result.live
    if live is None:
        return []
    lines = [
        f"unmatched tool call at seq {c['seq']}: {c['tool']} "
        f"{files.canonical_json(c['arguments'])} (no recorded call has these arguments; "
        "answered with the placeholder)"
        for c in live.unmatched
    ]
    lines += [f"provider error: status {e.status}: {e.message}" for e in live.provider_errors]
    if live.attempts > 1:
        lines.append(f"passed {live.passes} of {live.attempts} live attempts")
    return lines


def live_summary(results: Sequence[CaseResult]) -> list[str]:
    """The run's live-model totals (nothing when no case ran live)."""
    totals = Totals.of(results)
    return [totals.text()] if totals is not None else []
