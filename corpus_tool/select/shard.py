"""Splitting a selection into N shards of about equal work, the same way on every run."""

from __future__ import annotations

import heapq
import re
from collections.abc import Mapping
from dataclasses import dataclass

from corpus_tool.errors import UsageError

_SPEC = re.compile(r"(?:(\d+)/)?(\d+)")
MAX_SHARDS = 1000
"""More shards than any CI runs at once; a larger N is a typo (and would build N empty shards)."""


@dataclass(frozen=True)
class ShardSpec:
    """`--shard K/N`: shard K (1-based) of N; `--shard N` (index None) means all N shards."""

    index: int | None
    count: int

    @classmethod
    def parse(cls, text: str) -> ShardSpec:
        """Read K/N (or N); UsageError unless 1 <= K <= N."""
        match = _SPEC.fullmatch(text.strip())
        if match is None:
            raise UsageError(f"--shard {text!r}: give K/N, e.g. 2/4 (shard 2 of 4)")
        count = int(match.group(2))
        index = int(match.group(1)) if match.group(1) is not None else None
        if not 1 <= count <= MAX_SHARDS or (index is not None and not 1 <= index <= count):
            raise UsageError(
                f"--shard {text!r}: K must be between 1 and N, and N between 1 and {MAX_SHARDS}"
            )
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}" if self.index is not None else str(self.count)


@dataclass(frozen=True)
class Shard:
    """One shard: its 1-based number, its cases (sorted) and their total weight."""

    number: int
    count: int
    cases: tuple[str, ...]
    weight: int


def balance(weights: Mapping[str, int], count: int) -> list[Shard]:
    """Longest-first greedy: the heaviest case goes to the lightest shard.

    Cases are taken by weight (heaviest first), ties by id; shards tie by number. Nothing else
    enters, so the same selection gives the same shards on every machine and every run, and
    every case lands in exactly one shard.
    """
    loads = [(0, number) for number in range(1, count + 1)]
    members: dict[int, list[str]] = {number: [] for number in range(1, count + 1)}
    for case_id in sorted(weights, key=lambda c: (-weights[c], c)):
        load, number = heapq.heappop(loads)
        members[number].append(case_id)
        heapq.heappush(loads, (load + weights[case_id], number))
    return [
        Shard(n, count, tuple(sorted(ids)), sum(weights[i] for i in ids))
        for n, ids in members.items()
    ]
