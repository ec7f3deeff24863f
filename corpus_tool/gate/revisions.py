"""`gate --base REV`: the affected cases replayed on both revisions, each from its own files.

The base side is the merge base of REV and the head (what `corpus affected` diffs from),
checked out in a temporary worktree; the head side is the working tree as it is (or, with
`--head REV`, that revision in a second temporary worktree). Nothing of the user's checkout
changes: not the files, the index, the branch or HEAD.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from corpus_tool.errors import UsageError
from corpus_tool.gate import gitdir
from corpus_tool.gate.rounds import ROUND, merged, still_open
from corpus_tool.gate.sides import Say, open_side, replay_side, side_pool
from corpus_tool.gate.worktree import Only, checkout, held, interruptible, sweep
from corpus_tool.model.config import GateSection
from corpus_tool.model.results import Results, read_results
from corpus_tool.replay.runner import RunOptions
from corpus_tool.select.cache import FactCache
from corpus_tool.select.changed import resolve_sides, select_changed
from corpus_tool.select.git import WORKTREE, Repository
from corpus_tool.select.layout import Layout
from corpus_tool.store.corpus import Corpus
from corpus_tool.validate.cache import cache_dir
from corpus_tool.validate.documents import DocumentCache


@dataclass(frozen=True)
class Revisions:
    """What to compare: `--base REV`, `--head REV` (None: the working tree), `--all`."""

    base: str
    head: str | None = None
    all: bool = False
    head_results: Path | None = None  # the head side's results, replayed already (CI)
    auto: int | None = None  # --repeat auto: rounds up to this many attempts per side
    settings: GateSection = field(default_factory=GateSection)  # what settles a case (auto)


@dataclass(frozen=True)
class Compared:
    """Both sides' results documents, the cases the change removes, and how to name each side."""

    base: Results
    head: Results
    removed: tuple[str, ...]
    base_label: str
    head_label: str
    changed: tuple[str, ...] = ()  # cases whose recording (trace.yaml) differs between sides


Tell = Callable[[str], None]


def compare_revisions(
    root: Path, asked: Revisions, options: RunOptions, today: date, tell: Tell, say: Say
) -> Compared:
    """Select, then replay the selection on the base side and on the head side."""
    repo = Repository.discover(root)
    sweep(repo)
    layout = Layout.at(os.path.relpath(root, repo.root))
    sides = resolve_sides(repo, layout, asked.base, asked.head or WORKTREE)
    cache = FactCache.load(repo.cache_dir())
    selection = select_changed(repo, layout, sides, root, cache)
    cache.save()
    # both sides' case files are read through one document cache, the working tree's (the
    # base checkout is temporary); its keys are the files' bytes, so an unchanged file is shared.
    # The cache lives in the git dir, which is watched while agents run (_kept): new entries
    # are written only once the watch found it as it was
    documents = DocumentCache(cache_dir(root, os.environ), deferred=True)
    ids = list(selection.cases.ids) if asked.all else selection.selected()
    removed = tuple(r.id for r in selection.removed)
    base_label = f"{asked.base} (merge base {sides.merge_base[:12]})"
    head_label = f"{asked.head} ({sides.head[:12]})" if asked.head else "the working tree"
    given = None if asked.head_results is None else _given(asked.head_results, ids)  # read first
    only = None if asked.all else Only(layout.cases_dir, tuple(ids))  # --all: every case
    trees = _trees(repo, sides.merge_base, sides.head, asked.head, only)
    with interruptible(), trees as (old, new), _kept(repo):
        tell(f"base: {base_label}: replaying {len(ids)} selected case(s)")
        head_root = new / layout.prefix if asked.head else root
        changed = _edited(old / layout.prefix, head_root, ids)
        base_corpus = open_side(old / layout.prefix, f"base {base_label}")
        if asked.auto is not None:
            head_corpus = open_side(head_root, f"head {head_label}")
            corpora = (base_corpus, head_corpus)
            base, head = _rounds(asked, corpora, ids, options, today, tell, say, documents)
        else:
            base_side = f"base {base_label}"
            base = replay_side(
                base_corpus, ids, options, today, say, base_side, documents=documents
            )
            if given is not None:
                head_label = f"{head_label}, as {asked.head_results} records it"
                head = given
            else:
                tell(f"head: {head_label}")
                head_corpus = open_side(head_root, f"head {head_label}")
                head_side = f"head {head_label}"
                head = replay_side(
                    head_corpus, ids, options, today, say, head_side, documents=documents
                )
        if asked.all and base_corpus is not None:  # read before the checkout goes
            removed = tuple(sorted(set(removed) | (set(base_corpus.case_ids()) - set(ids))))
    documents.flush()
    return Compared(base, head, removed, base_label, head_label, changed)


def _rounds(
    asked: Revisions,
    corpora: tuple[Corpus | None, Corpus | None],
    ids: list[str],
    options: RunOptions,
    today: date,
    tell: Tell,
    say: Say,
    documents: DocumentCache | None = None,
) -> tuple[Results, Results]:
    """--repeat auto: ROUND attempts per side at a time, until each case is settled or has
    --max-repeat attempts (gate/rounds.py). Each side's workers are kept across the rounds."""
    top = asked.auto or 1
    base: Results | None = None
    head: Results | None = None
    pending, done = list(ids), 0
    with side_pool(corpora[0], options) as base_pool, side_pool(corpora[1], options) as head_pool:
        while pending and done < top:
            step = min(ROUND, top - done)
            run = replace(options, repeat=step)
            tell(f"round {done // ROUND + 1}: {len(pending)} case(s), {step} attempt(s) per side")
            more = replay_side(corpora[0], pending, run, today, say, "base", base_pool, documents)
            base = merged(base, more)
            more = replay_side(corpora[1], pending, run, today, say, "head", head_pool, documents)
            head = merged(head, more)
            done += step
            pending = still_open(base, head, pending, top, asked.settings)
    assert base is not None and head is not None
    return base, head


def _edited(base_root: Path, head_root: Path, ids: list[str]) -> tuple[str, ...]:
    """The cases both sides have whose trace.yaml differs: the change re-recorded them, so
    the two sides replay different incidents (not comparable)."""
    found = []
    for case in ids:
        old, new = (root / "cases" / case / "trace.yaml" for root in (base_root, head_root))
        if old.is_file() and new.is_file() and old.read_bytes() != new.read_bytes():
            found.append(case)
    return tuple(found)


def _given(path: Path, ids: list[str]) -> Results:
    """A head results document that holds every selected case (a missing one would go
    unjudged, so it is refused)."""
    doc = read_results(path)
    missing = sorted(set(ids) - set(doc.by_case()))
    if missing:
        raise UsageError(
            f"{path} has no result for {', '.join(missing[:10])}: replay the selected cases "
            "(corpus affected) into it, or leave out --head-results"
        )
    return doc


@contextlib.contextmanager
def _kept(repo: Repository) -> Iterator[None]:
    """The repository's git dir as it was before the block, whatever the agents replayed in
    it did (checked and put back on every way out, Ctrl-C and SIGTERM held meanwhile)."""
    found = repo.run("rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
    git_dir, common = (Path(line) for line in found.splitlines()[:2])
    roots = gitdir.git_dirs(git_dir, common)
    before = gitdir.take(roots)
    try:
        yield
    finally:
        with held():
            gitdir.check(before, roots)


@contextlib.contextmanager
def _trees(
    repo: Repository, merge_base: str, head: str, asked_head: str | None, only: Only | None
) -> Iterator[tuple[Path, Path]]:
    """The base checkout, and the head checkout when a head revision was named (`only`: the
    selected cases alone, with everything outside the cases directory)."""
    with checkout(repo, merge_base, only) as old:
        if asked_head is None:
            yield old, repo.root
            return
        with checkout(repo, head, only) as new:
            yield old, new
