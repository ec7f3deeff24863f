"""`corpus affected --base REV`: the cases a git diff can affect, why, and in which shard."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from corpus_tool.errors import UsageError
from corpus_tool.select.cache import FactCache
from corpus_tool.select.changed import ResolvedRevisions, resolve_sides, select_changed
from corpus_tool.select.facts import ExpectedFacts
from corpus_tool.select.git import INDEX, WORKTREE, Repository
from corpus_tool.select.layout import Layout
from corpus_tool.select.render import RENDERERS, Report
from corpus_tool.select.selection import Selection
from corpus_tool.select.shard import Shard, ShardSpec, balance
from corpus_tool.store.corpus import locate

ALL_SHARDS_FORMATS = ("json", "github-matrix")
TIERS = ("fast", "full", "archive")


@dataclass(frozen=True)
class AffectedOptions:
    """The command line of `corpus affected`, parsed."""

    base: str
    head: str | None = None  # a revision; None with staged/worktree, or for HEAD
    staged: bool = False
    worktree: bool = False
    explain: bool = False
    output: str = "lines"
    tiers: tuple[str, ...] = ()
    shard: ShardSpec | None = None


def affected(
    directory: Path | None, cwd: Path, options: AffectedOptions, out: TextIO, err: TextIO
) -> int:
    """Print the selection; 0 whether or not anything is selected."""
    _check_options(options)
    root = locate(directory, cwd)
    repo = Repository.discover(root)
    layout = Layout.at(os.path.relpath(root, repo.root))
    sides = resolve_sides(repo, layout, options.base, _head_of(options))
    cache = FactCache.load(repo.cache_dir())
    selection = select_changed(repo, layout, sides, root, cache)
    report = _report(selection, options, sides, _shown(root, cwd))
    warning = cache.save()
    if warning is not None:
        err.write(f"corpus affected: warning: {warning}\n")
    RENDERERS[options.output](report, out, err)
    return 0


def _check_options(options: AffectedOptions) -> None:
    unknown = sorted(set(options.tiers) - set(TIERS))
    if unknown:
        raise UsageError(f"--tier {unknown[0]!r}: choose from {', '.join(TIERS)}")
    spec = options.shard
    if spec is not None and spec.index is None and options.output not in ALL_SHARDS_FORMATS:
        raise UsageError(
            f"--shard {spec.count} lists every shard, which only --format json or "
            "github-matrix can show; give K/N to pick one shard"
        )


def _head_of(options: AffectedOptions) -> str | None:
    """The head side: INDEX, WORKTREE, or a revision (None: HEAD)."""
    return INDEX if options.staged else WORKTREE if options.worktree else options.head


def _report(
    selection: Selection, options: AffectedOptions, sides: ResolvedRevisions, corpus: str
) -> Report:
    cases = selection.cases
    picked = selection.selected()
    if options.tiers:
        tiers = cases.expecteds(picked)
        picked = [c for c in picked if _in_tiers(tiers[c], options.tiers)]
    spec = options.shard
    if spec is None and options.output == "github-matrix":
        spec = ShardSpec(None, 1)
    shards: tuple[Shard, ...] = ()
    if spec is not None:
        weights = {c: max(1, f.events) for c, f in cases.traces(picked).items()}
        shards = tuple(balance(weights, spec.count))
        if spec.index is not None:
            picked = list(shards[spec.index - 1].cases)
    return Report(
        selection,
        tuple(picked),
        shards,
        spec,
        corpus,
        sides.base,
        sides.merge_base,
        sides.head,
        options.explain,
    )


def _in_tiers(facts: ExpectedFacts, tiers: tuple[str, ...]) -> bool:
    # A case whose tier cannot be read stays in: running one case too many is the safe error.
    return facts.tier is None or facts.tier in tiers


def _shown(root: Path, cwd: Path) -> str:
    """The corpus directory as the next command (pytest) should get it: relative when inside cwd."""
    try:
        return root.relative_to(cwd.resolve()).as_posix() or "."
    except ValueError:
        return str(root)
