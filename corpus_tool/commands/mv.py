"""`corpus mv OLD NEW`: rename a case: its directory, the `id` in both files, waivers naming it.

Everything is read and edited in memory before anything is written. Then, in an order the next
run can always finish: the new case directory appears in one rename (a copy of the old one with
the ids changed), the waivers are rewritten one by one (each atomically), and the old directory
goes last. A run killed half way leaves the old case and a complete new one; running the same
`corpus mv OLD NEW` again recognises the new one as its own and finishes.
"""

from __future__ import annotations

import filecmp
import fnmatch
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from corpus_tool.errors import CorpusError, UsageError
from corpus_tool.io import files
from corpus_tool.store import recovery, staging
from corpus_tool.store.corpus import Corpus, check_case_id

CASE_FILES = ("trace.yaml", "expected.yaml")


@dataclass(frozen=True)
class Move:
    """A rename, planned: the edited case files and waivers, and whether it resumes one."""

    old: str
    new: str
    source: Path
    target: Path
    edited: dict[str, str]  # case file name -> its text with the new id
    waivers: dict[Path, str]  # waiver file -> its text naming the new case
    resuming: bool


def mv(corpus: Corpus, old: str, new: str, output: str, out: TextIO) -> int:
    """Rename case OLD to NEW; 0 when done (interrupted writes in the corpus are finished first)."""
    recovery.recover(corpus)
    _check_ids(old, new)
    # planned under both locks: a `forget` that removed OLD meanwhile is "no case", not a crash
    with staging.locked(corpus.case_dir(old)), staging.locked(corpus.case_dir(new)):
        move = plan(corpus, old, new)
        apply(move)
    _report(corpus, move, output, out)
    return 0


def plan(corpus: Corpus, old: str, new: str) -> Move:
    """Check the ids and read everything; refuse before anything is written."""
    _check_ids(old, new)
    corpus.check_no_twins([new])
    source, target = corpus.case_dir(old), corpus.case_dir(new)
    waivers = {
        path: _edited(path, "case", old, new, corpus)
        for path in corpus.waiver_paths()
        if _names(path, old, corpus)
    }
    if not source.is_dir():
        if target.is_dir() and _leftover(source).exists():  # killed while removing the old one
            return Move(old, new, source, target, {}, waivers, resuming=True)
        hint = f"; {target} exists: was it moved already?" if target.exists() else ""
        raise UsageError(f"no case {old!r} at {source}{hint}")
    edited = {name: _edited(source / name, "id", old, new, corpus) for name in CASE_FILES}
    resuming = target.exists() or target.is_symlink()
    if resuming and not _is_our_copy(source, target, edited):
        raise UsageError(
            f"case {new!r} exists at {target}; pick another id, or remove that case first"
        )
    return Move(old, new, source, target, edited, waivers, resuming)


def _check_ids(old: str, new: str) -> None:
    check_case_id(old)
    check_case_id(new)
    if old == new:
        raise UsageError(f"case {old!r} already has that id")


def apply(move: Move) -> None:
    """New directory, waivers, then the old directory: each step safe to repeat.

    The caller holds both case directories' locks for the whole move, like every write of a
    case; the copy keeps links as links and refuses pipes and devices (staging.py).
    """
    if not move.resuming:
        with staging.build(move.target, replace=False) as tmp:
            staging.copy_tree(move.source, tmp)
            for name, text in move.edited.items():
                staging.write_new(tmp / name, text)
    for path, text in move.waivers.items():
        files.atomic_write(path, text)
    gone = _leftover(move.source)
    if move.source.is_dir():
        shutil.rmtree(gone, ignore_errors=True)
        os.replace(move.source, gone)  # the case is gone in one step; cleaned up after
    shutil.rmtree(gone, ignore_errors=True)


def _leftover(source: Path) -> Path:
    """Where the old directory waits for its removal (hidden: no command lists it as a case)."""
    return source.with_name(f".{source.name}.moved")


def _edited(path: Path, key: str, old: str, new: str, corpus: Corpus) -> str:
    raw = files.read_bytes(path, within=corpus.root)
    data = files.parse_yaml(raw, path)  # refuses what is not UTF-8 YAML, with the line
    text = raw.decode("utf-8")
    found = data.get(key) if isinstance(data, dict) else None
    if found != old:
        raise UsageError(
            f"{path}: `{key}` is {found!r}, not {old!r}; fix the case (`corpus validate`) first"
        )
    return files.with_top_value(text, key, new, path)


def _names(path: Path, case_id: str, corpus: Corpus) -> bool:
    """Whether a waiver names the case (an unreadable waiver is validate's business)."""
    try:
        data = files.parse_yaml(files.read_bytes(path, within=corpus.root), path)
    except CorpusError:  # validate reports the file; a rename cannot mend it
        return False
    return isinstance(data, dict) and data.get("case") == case_id


def _is_our_copy(source: Path, target: Path, edited: dict[str, str]) -> bool:
    """The target is what an interrupted `mv` of this case made: same files, new ids."""
    if target.is_symlink() or not target.is_dir():
        return False
    for name, text in edited.items():
        path = target / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            return False
    return _same_files(filecmp.dircmp(source, target, ignore=list(CASE_FILES)))


def _same_files(compared: filecmp.dircmp[str]) -> bool:
    if compared.left_only or compared.right_only or compared.diff_files or compared.funny_files:
        return False
    return all(_same_files(sub) for sub in compared.subdirs.values())


def _report(corpus: Corpus, move: Move, output: str, out: TextIO) -> None:
    waivers = [str(p.relative_to(corpus.root)) for p in sorted(move.waivers)]
    rules = _rules_naming(corpus, move.old, move.new)
    if output == "json":
        doc: dict[str, Any] = {
            "old": move.old,
            "new": move.new,
            "path": str(move.target),
            "waivers": waivers,
            "resumed": move.resuming,
            "impact_rules": rules,
        }
        out.write(files.json_text(doc))
        return
    note = " (finished an interrupted move)" if move.resuming else ""
    out.write(f"moved case {move.old} -> {move.new}: {move.target}{note}\n")
    out.write(f"  id changed in {', '.join(CASE_FILES)}\n")
    for waiver in waivers:
        out.write(f"  waiver {waiver} now names {move.new}\n")
    for rule in rules:
        out.write(f"  corpus.yaml {rule} names {move.old} in `cases:`; edit it by hand\n")


def _rules_naming(corpus: Corpus, old: str, new: str) -> list[str]:
    """impact rules whose `cases:` globs selected the old id and miss the new one."""
    found = []
    for i, rule in enumerate(corpus.config.impact.rules):
        globs = rule.cases
        if any(fnmatch.fnmatchcase(old, g) for g in globs) and not any(
            fnmatch.fnmatchcase(new, g) for g in globs
        ):
            found.append(f"impact.rules[{i}]")
    return found
