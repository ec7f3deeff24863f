"""`corpus migrate [--dry-run]`: upgrade every corpus file to the current schema versions."""

from __future__ import annotations

import contextlib
import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from corpus_tool.errors import CorpusError, InputError
from corpus_tool.io import files, schema
from corpus_tool.io.migrations import Migrations, upgrade_text
from corpus_tool.store import staging
from corpus_tool.store.corpus import Corpus, refuse_outside_links


@dataclass(frozen=True)
class Upgraded:
    """One file to rewrite: its old and new text, and the version it had."""

    path: Path
    kind: str
    before: str
    after: str
    version: int


def migrate(
    corpus: Corpus, migrations: Migrations, dry_run: bool, output: str, cwd: Path, out: TextIO
) -> int:
    """Every file is upgraded in memory first; one that cannot be is an error and nothing is
    written. Each file is then replaced atomically. 0 whether or not anything changed."""
    refuse_outside_links(corpus)  # it would rewrite files the repository does not hold
    found, problems = _plan(corpus, migrations)
    if problems:
        shown = "; ".join(str(p) for p in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise InputError(f"cannot migrate, nothing written: {shown}{more}")
    if not dry_run:
        for item in found:
            _write(corpus, item)
    _report(found, dry_run, output, cwd, out)
    return 0


def _write(corpus: Corpus, item: Upgraded) -> None:
    """One upgraded file; a case file under its case's lock, like every write of a case
    (staging.py), and only if nobody changed it since it was read."""
    case = item.path.parent if item.kind in ("trace", "expected") else None
    with staging.locked(case) if case is not None else contextlib.nullcontext():
        if files.read_bytes(item.path, within=corpus.root).decode("utf-8") != item.before:
            raise InputError("changed while migrate ran; run `corpus migrate` again", item.path)
        files.atomic_write(item.path, item.after)


def corpus_files(corpus: Corpus) -> list[tuple[Path, str]]:
    """corpus.yaml, every case's trace.yaml and expected.yaml, every waiver, with their kind."""
    found = [(corpus.config_path, "corpus")]
    for case in corpus.case_ids():
        for kind in ("trace", "expected"):
            path = corpus.cases_dir / case / f"{kind}.yaml"
            if path.is_file():
                found.append((path, kind))
    found.extend((path, "waiver") for path in corpus.waiver_paths())
    return found


def _plan(corpus: Corpus, migrations: Migrations) -> tuple[list[Upgraded], list[CorpusError]]:
    found: list[Upgraded] = []
    problems: list[CorpusError] = []
    for path, kind in corpus_files(corpus):
        try:
            text = files.read_bytes(path, within=corpus.root).decode("utf-8")
            done = upgrade_text(text, kind, schema.CURRENT_VERSION[kind], migrations, str(path))
        except CorpusError as err:
            problems.append(err)
            continue
        except UnicodeDecodeError:
            problems.append(InputError("is not UTF-8 text", path))
            continue
        if done is not None:
            found.append(Upgraded(path, kind, text, done[0], done[1]))
    return found, problems


def _report(found: list[Upgraded], dry_run: bool, output: str, cwd: Path, out: TextIO) -> None:
    def shown(path: Path) -> str:
        return os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)

    if output == "json":
        out.write(
            files.json_text(
                {
                    "dry_run": dry_run,
                    "files": [
                        {
                            "path": shown(u.path),
                            "kind": u.kind,
                            "from": u.version,
                            "to": schema.CURRENT_VERSION[u.kind],
                        }
                        for u in found
                    ],
                }
            )
        )
        return
    for item in found:
        if dry_run:
            name = shown(item.path)
            out.writelines(
                difflib.unified_diff(
                    item.before.splitlines(True), item.after.splitlines(True), name, name
                )
            )
        else:
            out.write(
                f"migrated {shown(item.path)} ({item.kind} {item.version} -> "
                f"{schema.CURRENT_VERSION[item.kind]})\n"
            )
    verb = "would migrate" if dry_run else "migrated"
    if found:
        out.write(f"{verb} {len(found)} file(s) to the current schema versions\n")
    else:
        out.write("nothing to migrate: every file is at the current schema version\n")
