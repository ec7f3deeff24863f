"""`corpus validate [PATH...] [--staged]`: every problem of every given file (or the corpus).

PATHs are files (as pre-commit passes them) or directories, whose corpus files are all checked:
a corpus directory, its cases/ or waivers/, one case, or a directory holding corpora. `--staged`
checks what the git index holds for each corpus the staged change touches, deletions included
(validate/staged.py); it is what the pre-commit hook runs.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool.errors import InputError, UsageError
from corpus_tool.model.config import Config
from corpus_tool.model.findings import RENDERERS, Finding, sort_findings
from corpus_tool.store import recovery, staging
from corpus_tool.store.corpus import (
    CASES,
    CONFIG_NAME,
    WAIVERS,
    Corpus,
    find_root,
    load_config,
    locate,
)
from corpus_tool.validate import rules
from corpus_tool.validate.run import Caches, ValidationRun, pending_forget, relative_to

FEW_CASES = 20
"""A run of this many cases or fewer, not of the whole corpus, leaves the findings cache alone."""


@dataclass
class Targets:
    """What to check in one corpus."""

    corpus: Corpus
    config: bool = False
    cases: set[str] = field(default_factory=set)
    waivers: set[Path] = field(default_factory=set)
    whole: bool = False
    leftovers: bool = False  # report what interrupted writes left (cases/, waivers/)
    found: list[Finding] = field(default_factory=list)  # made while finding the targets
    key_root: Path | None = None  # where the key file is resolved (staged: the real corpus)

    def count(self) -> int:
        return int(self.config) + 2 * len(self.cases) + len(self.waivers)


def validate(
    root: Path | None,
    paths: list[Path],
    cwd: Path,
    today: date,
    output: str,
    out: TextIO,
    environ: Mapping[str, str] | None = None,
    staged: bool = False,
    cached: bool = True,
) -> int:
    """Check the files; 0 when clean, 1 when anything is wrong.

    `environ` (default: the process environment) may hold the redaction key, which the
    redaction allow-list needs. `cached`: reuse the findings of unchanged cases.
    """
    if staged and paths:
        raise UsageError("--staged checks what the git index holds; give it no paths")
    env = os.environ if environ is None else environ
    caches = Caches(env, cached)
    with _chosen(root, paths, cwd, staged) as (targets, show):
        found: list[Finding] = []
        for target in targets:
            found.extend(_check(target, today, show, env, caches))
        caches.save()
        findings = sort_findings(found)
        RENDERERS[output](findings, out, sum(t.count() for t in targets))
    return 1 if findings else 0


@contextlib.contextmanager
def _chosen(
    root: Path | None, paths: list[Path], cwd: Path, staged: bool
) -> Iterator[tuple[list[Targets], rules.Show]]:
    """The targets of one run, and how findings show paths; --staged works in a scratch copy."""
    show = relative_to(cwd)
    if not staged:
        yield (_targets_for_paths(paths, cwd) if paths else [_whole(root, cwd)]), show
        return
    with tempfile.TemporaryDirectory(prefix="corpus-staged-") as scratch:
        yield _staged(root, cwd, Path(scratch), show)


def everything(corpus: Corpus) -> Targets:
    """Every file of a corpus."""
    return Targets(corpus, True, set(corpus.case_ids()), set(corpus.waiver_paths()), whole=True)


def _check(
    target: Targets,
    today: date,
    show: rules.Show,
    environ: Mapping[str, str],
    caches: Caches,
) -> list[Finding]:
    corpus = target.corpus
    key_root = target.key_root or corpus.root  # staged: the real corpus, not its scratch copy
    forgetting, found = pending_forget(corpus, show)
    # A run of a few cases (the hook's) validates them afresh: loading the cache of a large
    # corpus costs more than they do, and their new content would be a miss anyway.
    few = not target.whole and len(target.cases) <= FEW_CASES
    cache = None if few else caches.get(key_root)
    run = ValidationRun(corpus, today, show, environ, cache, key_root, forgetting)
    found += run.problems + target.found
    if target.config:
        found.extend(run.config())
    for case_id in sorted(target.cases):
        found.extend(run.case(case_id).findings)
    for waiver in sorted(target.waivers):
        found.extend(run.waiver(waiver))
    if target.whole:  # an entry is stale only if no file of the whole corpus needs it
        found.extend(run.whole())
    if target.whole or target.leftovers:
        found.extend(recovery.findings(corpus, show))
    return found


def _open(root: Path) -> Corpus:
    """A corpus for validation: a broken corpus.yaml is a finding, not a stop."""
    try:
        config = load_config(root)
    except InputError:
        config = Config()  # the defaults: validation reports the file itself
    return Corpus(root=root, config=config)


def _whole(root: Path | None, cwd: Path) -> Targets:
    return everything(_open(locate(root, cwd)))


def _staged(
    root: Path | None, cwd: Path, scratch: Path, show: rules.Show
) -> tuple[list[Targets], rules.Show]:
    """One target per corpus the staged change touches, in its copy out of the index."""
    from corpus_tool.validate import staged  # the hook's path alone reads the index

    repository = staged.Index(cwd if root is None else root)
    top = repository.root

    def shown(path: Path) -> str:  # a scratch path, shown as the repository path it stands for
        try:
            return show(top / path.relative_to(scratch))
        except ValueError:
            return show(path)

    copies, found = staged.copies(repository, root, scratch, shown)
    targets = [
        Targets(
            _open(copy.root),
            config=copy.config,
            cases=set(copy.cases),
            waivers=set(copy.waivers),
            found=list(copy.found),
            key_root=copy.real_root,
        )
        for copy in copies
    ]
    if found:  # findings of corpora with nothing left to copy (a deleted corpus.yaml)
        targets.append(Targets(Corpus(scratch), found=found))
    return targets, shown


def _targets_for_paths(paths: Iterable[Path], cwd: Path) -> list[Targets]:
    by_root: dict[Path, Targets] = {}
    for given in paths:
        path = (cwd / given).resolve()
        if _is_dir(path):
            _directory(by_root, path, given)
            continue
        root = find_root(path)
        if root is None:
            raise UsageError(
                f"{given}: no corpus.yaml in its directory or above; "
                "run `corpus init` or narrow the hook's `files` pattern"
            )
        _classify(_target(by_root, root), path.relative_to(root), given)
    return [by_root[r] for r in sorted(by_root)]


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long to exist: find_root reports it
        return False


def _target(by_root: dict[Path, Targets], root: Path) -> Targets:
    return by_root.setdefault(root, Targets(_open(root)))


def _directory(by_root: dict[Path, Targets], path: Path, given: Path) -> None:
    """A directory argument: every corpus file under it (never "0 files checked")."""
    root = find_root(path)
    if root is None:
        roots = _corpora_under(path)
        if not roots:
            raise UsageError(f"{given}: no corpus.yaml in it, above or below it; give a corpus")
        for found in roots:
            by_root[found] = everything(_open(found))
        return
    parts = path.relative_to(root).parts
    target = _target(by_root, root)
    if not parts:
        by_root[root] = everything(target.corpus)
    elif parts[0] == CASES and len(parts) == 1:
        cases = target.corpus.case_ids()
        if not cases and not staging.leftovers(target.corpus.cases_dir):
            raise UsageError(f"{given}: holds no cases; nothing to check")
        target.cases.update(cases)
        target.leftovers = True
    elif parts[0] == CASES:
        _classify(target, Path(*parts[:2]), given)
    elif parts[0] == WAIVERS and len(parts) == 1:
        waivers = target.corpus.waiver_paths()
        if not waivers and not staging.leftovers(target.corpus.waivers_dir):
            raise UsageError(f"{given}: holds no waivers; nothing to check")
        target.waivers.update(waivers)
        target.leftovers = True
    else:
        raise UsageError(
            f"{given}: holds no corpus files; give the corpus directory ({root}), its "
            f"{CASES}/ or {WAIVERS}/, or one case"
        )


def _corpora_under(path: Path) -> list[Path]:
    """Corpus directories below `path` (hidden directories and corpora's insides skipped)."""
    found = []
    for here, dirs, names in os.walk(path):
        if CONFIG_NAME in names:
            found.append(Path(here))
            dirs.clear()
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
    return found


def _classify(target: Targets, rel: Path, given: Path) -> None:
    parts = rel.parts
    if parts == (CONFIG_NAME,):
        target.config = True
    elif len(parts) >= 2 and parts[0] == CASES:
        if staging.parse(parts[1]) is not None:  # an interrupted write's, not a case's
            target.leftovers = True
        elif (target.corpus.cases_dir / parts[1]).is_dir():
            target.cases.add(parts[1])
        # else: a deleted case has nothing left to check here (`--staged` sees deletions)
    elif len(parts) == 2 and parts[0] == WAIVERS and staging.parse(parts[1]) is not None:
        target.leftovers = True  # what a killed `waivers new` left beside its waiver
    elif len(parts) == 2 and parts[0] == WAIVERS and rel.suffix in (".yaml", ".yml"):
        if (target.corpus.root / rel).is_file():
            target.waivers.add(target.corpus.root / rel)
    else:
        raise UsageError(
            f"{given}: not a corpus file; give corpus.yaml, a file of a case, a waiver, or a "
            "directory"
        )
