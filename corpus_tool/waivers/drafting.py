"""Writing a new waiver file (`corpus waivers new`): checked first, then created atomically,
never over an existing file, under the file's lock (staging.locked) so that what a killed run
left beside it (`waivers/.<id>.yaml.<random>.tmp`) is removed by the next writing command."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from corpus_tool.errors import BusyError, InputError, UsageError
from corpus_tool.io import files, schema
from corpus_tool.model.checks import WAIVABLE
from corpus_tool.model.json import JsonObject
from corpus_tool.model.waiver import parse_day
from corpus_tool.store import staging
from corpus_tool.store.corpus import Corpus
from corpus_tool.store.faults import NO_STEPS, StepCounter

_NUMBERED = re.compile(r"W-(\d+)")
HEADER = "# A waiver: reviewed in the pull request that adds it; see `corpus waivers --help`.\n"


@dataclass(frozen=True)
class Draft:
    """What `corpus waivers new` was asked for."""

    case: str
    checks: tuple[str, ...]
    reason: str
    owner: str | None = None
    expires: str | None = None
    ticket: str | None = None
    id: str | None = None


def document(corpus: Corpus, draft: Draft, today: date) -> JsonObject:
    """The waiver document of a draft, every field checked (UsageError says what to fix)."""
    if draft.case not in corpus.case_ids():
        raise UsageError(f"no such case {draft.case!r}; the cases are in {corpus.cases_dir}")
    unknown = [c for c in draft.checks if c not in WAIVABLE]
    if unknown:
        raise UsageError(
            f"unknown check {', '.join(unknown)}; waivable: {', '.join(WAIVABLE)} "
            "(`corpus explain` describes each)"
        )
    if not draft.reason.strip():
        raise UsageError("--reason is empty; say why the failure is acceptable for now")
    doc: JsonObject = {
        "schema_version": 1,
        "id": draft.id or next_id(corpus),
        "kind": "check",
        "case": draft.case,
        "checks": list(dict.fromkeys(draft.checks)),
        "reason": draft.reason.strip(),
        "owner": draft.owner or git_owner(corpus.root),
        "expires": expiry(corpus, draft.expires, today).isoformat(),
        "created": today.isoformat(),
    }
    if draft.ticket:
        doc["ticket"] = draft.ticket
    problem = schema.first_problem("waiver", doc)
    if problem:
        raise UsageError(f"the waiver would not be valid: {problem}")
    return doc


def expiry(corpus: Corpus, asked: str | None, today: date) -> date:
    """--expires, else waivers.max_days (or 90) from today; never past max_days, never past."""
    policy = corpus.config.waivers
    days = policy.days
    last = today + timedelta(days=days)
    if asked is None:
        return last
    day = parse_day(asked)
    if day is None:
        raise UsageError(f"--expires {asked!r}: give a day as YYYY-MM-DD")
    if day < today:
        raise UsageError(f"--expires {day} is in the past; a waiver must hold at least today")
    if day > last:
        which = (
            "waivers.max_days"
            if policy.max_days is not None
            else "waivers.max_days unset: the default"
        )
        raise UsageError(
            f"--expires {day} is more than {days} days ahead ({which}); give {last} or earlier"
        )
    return day


def git_owner(root: Path) -> str:
    """`git config user.name` where the corpus is; a UsageError when it is not set."""
    try:
        done = subprocess.run(
            ["git", "config", "user.name"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        name = done.stdout.strip() if done.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        name = ""
    if not name:
        raise UsageError("no --owner given and `git config user.name` is not set; pass --owner")
    return name


def next_id(corpus: Corpus) -> str:
    """W-NNNN, one above the highest numbered waiver id of the corpus."""
    numbers = [int(m.group(1)) for p in corpus.waiver_paths() if (m := _NUMBERED.fullmatch(p.stem))]
    return f"W-{max(numbers, default=0) + 1:04d}"


def create(corpus: Corpus, doc: JsonObject, chosen: bool, steps: StepCounter = NO_STEPS) -> Path:
    """Write the waiver as waivers/<id>.yaml, never over an existing file.

    The file appears whole or not at all (written aside, then hard-linked into place, which
    fails when the name is taken); an id picked here moves on to the next free number, also
    past one another `waivers new` is writing right now.
    """
    corpus.waivers_dir.mkdir(parents=True, exist_ok=True)
    for _ in range(1000):
        target = corpus.waivers_dir / f"{doc['id']}.yaml"
        try:
            if _link_new(target, HEADER + files.dump_yaml(doc), steps):
                return target
        except BusyError:
            if chosen:
                raise
        if chosen:
            raise UsageError(f"waiver {doc['id']} exists ({target}); choose another --id")
        doc["id"] = f"W-{int(str(doc['id'])[2:]) + 1:04d}"
    raise InputError("no free waiver id found", corpus.waivers_dir)


def _link_new(target: Path, text: str, steps: StepCounter) -> bool:
    """Whether `text` became `target` (False: the name was taken); under target's lock."""
    with staging.locked(target, steps):
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            os.fchmod(fd, 0o666 & ~files.umask())
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            steps.done(f"{target.name} written aside")
            try:
                os.link(tmp, target)
            except FileExistsError:
                return False
            steps.done(f"{target.name} in place")
            return True
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
