"""`corpus validate [PATH...]`: every problem of every given file (or the whole corpus)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TextIO

from corpus_tool import validation
from corpus_tool.corpus import CASES, CONFIG_NAME, WAIVERS, Corpus, find_root, load_config, locate
from corpus_tool.errors import InputError, UsageError
from corpus_tool.findings import REPORTERS, Finding, sort_findings
from corpus_tool.redact.guard import open_guard


@dataclass
class Targets:
    """What to check in one corpus."""

    corpus: Corpus
    config: bool = False
    cases: set[str] = field(default_factory=set)
    waivers: set[Path] = field(default_factory=set)
    whole: bool = False

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
) -> int:
    """Check the files; 0 when clean, 1 when anything is wrong.

    `environ` (default: the process environment) may hold the redaction key, which the
    redaction allow-list needs.
    """
    targets = _targets_for_paths(paths, cwd) if paths else [_whole(root, cwd)]
    show = shower(cwd)
    env = os.environ if environ is None else environ
    found: list[Finding] = []
    for target in targets:
        found.extend(_check(target, today, show, env))
    findings = sort_findings(found)
    REPORTERS[output](findings, out, sum(t.count() for t in targets))
    return 1 if findings else 0


def corpus_findings(
    corpus: Corpus,
    today: date,
    show: validation.Show,
    environ: Mapping[str, str],
    valid: validation.Valid | None = None,
) -> list[Finding]:
    """Every finding of a whole corpus, sorted (what `corpus check` reports first).

    Case files found schema-valid are collected in `valid`, for replay to reuse.
    """
    return sort_findings(_check(_everything(corpus), today, show, environ, valid))


def _everything(corpus: Corpus) -> Targets:
    return Targets(corpus, True, set(corpus.case_ids()), set(corpus.waiver_paths()), whole=True)


def _check(
    target: Targets,
    today: date,
    show: validation.Show,
    environ: Mapping[str, str],
    valid: validation.Valid | None = None,
) -> list[Finding]:
    corpus = target.corpus
    guard = open_guard(corpus.root, corpus.config, corpus.waiver_paths(), environ, today, show)
    found = list(guard.problems)
    if target.config:
        found.extend(validation.check_config(corpus, show, guard.inspect))
    for case_id in sorted(target.cases):
        found.extend(validation.check_case(corpus, case_id, show, guard.inspect, valid))
    for waiver in sorted(target.waivers):
        found.extend(validation.check_waiver(corpus, waiver, today, show, guard.inspect))
    if target.whole:  # an entry is stale only if no file of the whole corpus needs it
        found.extend(guard.stale() + guard.split() + validation.check_layout(corpus, show))
    return found


def _open(root: Path) -> Corpus:
    """A corpus for validation: a broken corpus.yaml is a finding, not a stop."""
    try:
        config = load_config(root)
    except InputError:
        config = {}
    return Corpus(root=root, config=config)


def _whole(root: Path | None, cwd: Path) -> Targets:
    return _everything(_open(locate(root, cwd)))


def _targets_for_paths(paths: Iterable[Path], cwd: Path) -> list[Targets]:
    by_root: dict[Path, Targets] = {}
    for given in paths:
        path = (cwd / given).resolve()
        root = find_root(path)
        if root is None:
            raise UsageError(
                f"{given}: no corpus.yaml in its directory or above; "
                "run `corpus init` or narrow the hook's `files` pattern"
            )
        target = by_root.setdefault(root, Targets(_open(root)))
        _classify(target, path.relative_to(root))
    return [by_root[r] for r in sorted(by_root)]


def _classify(target: Targets, rel: Path) -> None:
    parts = rel.parts
    if parts == (CONFIG_NAME,):
        target.config = True
    elif len(parts) >= 2 and parts[0] == CASES:
        # a deleted case has nothing left to check
        if (target.corpus.cases_dir / parts[1]).is_dir():
            target.cases.add(parts[1])
    elif len(parts) == 2 and parts[0] == WAIVERS and rel.suffix in (".yaml", ".yml"):
        if (target.corpus.root / rel).is_file():
            target.waivers.add(target.corpus.root / rel)


def shower(cwd: Path) -> validation.Show:
    """Paths in findings: relative to the current directory, as the user typed them."""

    def show(path: Path) -> str:
        try:
            return os.path.relpath(path, cwd)
        except ValueError:  # another drive on Windows
            return str(path)

    return show
