"""`corpus affected --base REV`: the cases a git diff can affect, why, and in which shard."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from corpus_tool import files, schema
from corpus_tool.corpus import load_config, locate
from corpus_tool.errors import InputError, UsageError
from corpus_tool.select.cache import FactCache
from corpus_tool.select.facts import ExpectedFacts, TraceFacts
from corpus_tool.select.git import INDEX, WORKTREE, Repository, Snapshot
from corpus_tool.select.layout import Layout
from corpus_tool.select.output import REPORTERS, Report
from corpus_tool.select.rules import Impact
from corpus_tool.select.selection import BlobReader, CaseIndex, Selection, select
from corpus_tool.select.shard import Shard, ShardSpec, balance

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


@dataclass(frozen=True)
class Sides:
    """The resolved revisions: base as given, the merge base, and the head side."""

    base: str
    merge_base: str
    head: str  # a commit id, INDEX or WORKTREE
    snapshot: Snapshot


def affected(
    directory: Path | None, cwd: Path, options: AffectedOptions, out: TextIO, err: TextIO
) -> int:
    """Print the selection; 0 whether or not anything is selected."""
    _check_options(options)
    root = locate(directory, cwd)
    repo = Repository.discover(root)
    layout = Layout.at(os.path.relpath(root, repo.root))
    sides = _sides(repo, layout, options)
    cache = FactCache.load(repo.cache_dir())
    impact = Impact.from_config(_head_config(repo, sides, layout, root))
    cases = _case_index(repo, sides.snapshot, layout, cache)
    # the cache's own files, when CORPUS_CACHE_DIR lies in the work tree, are not a change
    changes = [
        c for c in repo.changes(sides.merge_base, sides.head) if not cache.owns(repo.root / c.path)
    ]
    selection = select(changes, layout, impact, cases, _base_reader(repo, sides.merge_base))
    report = _report(selection, options, sides, _shown(root, cwd))
    warning = cache.save()
    if warning is not None:
        err.write(f"corpus affected: warning: {warning}\n")
    REPORTERS[options.output](report, out, err)
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


def _sides(repo: Repository, layout: Layout, options: AffectedOptions) -> Sides:
    base = repo.commit(options.base)
    head_commit = repo.commit(options.head or "HEAD")
    merge_base = repo.merge_base(base, head_commit)
    head = INDEX if options.staged else WORKTREE if options.worktree else head_commit
    return Sides(options.base, merge_base, head, repo.snapshot(head, layout.pathspecs()))


def _head_config(repo: Repository, sides: Sides, layout: Layout, root: Path) -> Mapping[str, Any]:
    """corpus.yaml as the head side has it: its rules decide (the worktree's when it has none)."""
    blob = sides.snapshot.blobs.get(layout.config_path)
    if blob is None:
        return load_config(root)
    where = Path(
        layout.config_path
        if sides.head in (INDEX, WORKTREE)
        else f"{sides.head[:12]}:{layout.config_path}"
    )
    data = files.parse_yaml(repo.read(blob, sides.snapshot), where)
    if not isinstance(data, dict):
        raise InputError("corpus.yaml must be a mapping; see `corpus validate`", where)
    problems = [schema.version_problem("corpus", data)] + [
        f"{schema.json_path(e.absolute_path)}: {e.message}" for e in schema.errors("corpus", data)
    ]
    found = [p for p in problems if p]
    if found:
        raise InputError(f"{found[0]}; see `corpus validate`", where)
    return data


def _case_index(
    repo: Repository, snapshot: Snapshot, layout: Layout, cache: FactCache
) -> CaseIndex:
    ids = {c for c in map(layout.case_of, snapshot.blobs) if c is not None}

    def head_blob(path: str) -> bytes | None:
        blob = snapshot.blobs.get(path)
        return repo.read(blob, snapshot) if blob is not None else None

    def read(blobs: list[str]) -> dict[str, bytes]:
        return repo.read_many(blobs, snapshot)

    def traces(case_ids: list[str]) -> dict[str, TraceFacts]:
        blobs = _blobs(snapshot, layout, case_ids, "trace.yaml")
        facts = cache.traces(blobs.values(), read)
        # No trace.yaml: what the case calls is unknown, so it counts as unreadable.
        return {c: facts[blobs[c]] if c in blobs else TraceFacts(readable=False) for c in case_ids}

    def expecteds(case_ids: list[str]) -> dict[str, ExpectedFacts]:
        blobs = _blobs(snapshot, layout, case_ids, "expected.yaml")
        facts = cache.expecteds(blobs.values(), read)
        return {c: facts[blobs[c]] if c in blobs else ExpectedFacts() for c in case_ids}

    return CaseIndex(ids, traces, expecteds, head_blob)


def _blobs(snapshot: Snapshot, layout: Layout, case_ids: list[str], name: str) -> dict[str, str]:
    paths = {c: layout.case_path(c, name) for c in case_ids}
    return {c: snapshot.blobs[p] for c, p in paths.items() if p in snapshot.blobs}


def _base_reader(repo: Repository, merge_base: str) -> BlobReader:
    def read(path: str) -> bytes | None:
        blob = repo.tree(merge_base, [path]).get(path)
        return repo.read(blob) if blob is not None else None

    return read


def _report(selection: Selection, options: AffectedOptions, sides: Sides, corpus: str) -> Report:
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
