"""From two sides of a repository to the selection: resolve the revisions, read the head side's
cases and corpus.yaml, diff from the merge base, apply the rules (`corpus affected`, `gate`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from corpus_tool.model.config import Config
from corpus_tool.select.cache import FactCache
from corpus_tool.select.facts import ExpectedFacts, TraceFacts
from corpus_tool.select.git import INDEX, WORKTREE, HeadFiles, Repository
from corpus_tool.select.layout import Layout
from corpus_tool.select.rules import Impact
from corpus_tool.select.selection import BlobReader, CaseIndex, Selection, select
from corpus_tool.store.corpus import config_from_bytes, is_case_id, load_config


@dataclass(frozen=True)
class ResolvedRevisions:
    """The resolved revisions: base as given, the merge base, and the head side."""

    base: str
    merge_base: str
    head: str  # a commit id, INDEX or WORKTREE
    head_files: HeadFiles


def resolve_sides(
    repo: Repository, layout: Layout, base: str, head: str | None
) -> ResolvedRevisions:
    """The merge base of `base` and HEAD (or the `head` revision); `head` may be INDEX or
    WORKTREE (then the merge base is taken with HEAD)."""
    base_commit = repo.commit(base)
    local = head in (INDEX, WORKTREE)
    head_commit = repo.commit("HEAD" if local or head is None else head)
    merge_base = repo.merge_base(base_commit, head_commit)
    side = head if local and head is not None else head_commit
    head_files = repo.head_files(side, layout.pathspecs(), layout.cases_dir)
    return ResolvedRevisions(base, merge_base, side, head_files)


def select_changed(
    repo: Repository, layout: Layout, sides: ResolvedRevisions, root: Path, cache: FactCache
) -> Selection:
    """The cases the change from the merge base to the head side can affect, and why."""
    impact = Impact.from_config(_head_config(repo, sides, layout, root).impact)
    cases = _case_index(repo, sides.head_files, layout, cache)
    # the cache's own files, when CORPUS_CACHE_DIR lies in the work tree, are not a change
    changed = repo.changes(sides.merge_base, sides.head)
    changes = [c for c in changed if not cache.owns(repo.root / c.path)]
    return select(changes, layout, impact, cases, _base_reader(repo, sides.merge_base))


def _head_config(repo: Repository, sides: ResolvedRevisions, layout: Layout, root: Path) -> Config:
    """corpus.yaml as the head side has it: its rules decide (the worktree's when it has none)."""
    blob = sides.head_files.blobs.get(layout.config_path)
    if blob is None:
        return load_config(root)
    where = Path(
        layout.config_path
        if sides.head in (INDEX, WORKTREE)
        else f"{sides.head[:12]}:{layout.config_path}"
    )
    return config_from_bytes(repo.read(blob, sides.head_files), where)


def _case_index(
    repo: Repository, head_files: HeadFiles, layout: Layout, cache: FactCache
) -> CaseIndex:
    if head_files.case_dirs is not None:  # a tree lists no empty directory: each is a case
        ids = {c for c in head_files.case_dirs if is_case_id(c)}
    else:
        ids = layout.case_ids(head_files.blobs)
    ids.update(c for c in map(layout.case_of_link, head_files.links) if c is not None)

    def head_blob(path: str) -> bytes | None:
        blob = head_files.lookup([path]).get(path)
        return repo.read(blob, head_files) if blob is not None else None

    def read(blobs: list[str]) -> dict[str, bytes]:
        return repo.read_many(blobs, head_files)

    def traces(case_ids: list[str]) -> dict[str, TraceFacts]:
        blobs = _blobs(head_files, layout, case_ids, "trace.yaml")
        facts = cache.traces(blobs.values(), read)
        # No trace.yaml: what the case calls is unknown, so it counts as unreadable.
        return {c: facts[blobs[c]] if c in blobs else TraceFacts(readable=False) for c in case_ids}

    def expecteds(case_ids: list[str]) -> dict[str, ExpectedFacts]:
        blobs = _blobs(head_files, layout, case_ids, "expected.yaml")
        facts = cache.expecteds(blobs.values(), read)
        return {c: facts[blobs[c]] if c in blobs else ExpectedFacts() for c in case_ids}

    return CaseIndex(ids, traces, expecteds, head_blob)


def _blobs(head_files: HeadFiles, layout: Layout, case_ids: list[str], name: str) -> dict[str, str]:
    paths = {c: layout.case_path(c, name) for c in case_ids}
    found = head_files.lookup(list(paths.values()))
    return {c: found[p] for c, p in paths.items() if p in found}


def _base_reader(repo: Repository, merge_base: str) -> BlobReader:
    def read(path: str) -> bytes | None:
        blob = repo.tree(merge_base, [path]).get(path)
        return repo.read(blob) if blob is not None else None

    return read
