"""One validation run over one corpus: its redaction guard, its findings cache, file by file.

`corpus validate` asks it for the files it was given; `corpus check` asks it case by case as
replay reaches each case, and takes the parsed documents along, so a file is read and parsed
once in a run. A case whose bytes (and the run's context) are in the findings cache costs a
read and a lookup; the rules that span the corpus (waivers, layout, stale allow-list entries)
run every time.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.io import files
from corpus_tool.model.findings import Finding
from corpus_tool.redact.guard import open_guard
from corpus_tool.store import erasure, recovery
from corpus_tool.store.corpus import Corpus
from corpus_tool.validate import rules, stats
from corpus_tool.validate.cache import Entry, FindingsCache, cache_dir, case_key, context_key

KINDS = stats.KINDS


@dataclass(frozen=True)
class CheckedCase:
    """A case as validation left it: its findings, the bytes of its files that fit their schema
    and, where this run parsed them or the document cache held them, their documents (by kind:
    `trace`, `expected`). A case found unchanged by its files' stat data was not read: its
    documents (when asked for) are all of its valid files', and `valid` is empty."""

    findings: list[Finding]
    valid: dict[str, bytes] = field(default_factory=dict)
    documents: dict[str, Any] = field(default_factory=dict)
    trace_key: str | None = None
    """The SHA-256 of trace.yaml's bytes, where this run knows it (read or vouched for)."""


class ValidationRun:
    """The checks of one corpus in one run; `cache` None validates every file afresh."""

    def __init__(
        self,
        corpus: Corpus,
        today: date,
        show: rules.Show,
        environ: Mapping[str, str],
        cache: FindingsCache | None = None,
        key_root: Path | None = None,
        forgetting: frozenset[str] = frozenset(),
    ) -> None:
        """`key_root`: where the key file is resolved (`--staged` validates a scratch copy of
        the corpus); `forgetting`: cases an interrupted `corpus forget` still has to remove."""
        self.corpus, self.today, self.show = corpus, today, show
        self._forgetting = forgetting
        # Findings are made with paths relative to the corpus (as the cache stores them) and
        # shown relative to the user's directory on the way out.
        root = corpus.root
        self._relative: rules.Show = lambda path: os.path.relpath(path, root)
        self.guard = open_guard(
            key_root or root,
            corpus.config.redaction,
            corpus.waiver_paths(),
            environ,
            today,
            self._relative,
        )
        self.problems = self._shown(self.guard.problems)
        self._cache = cache
        self._files = _CaseReader(corpus)
        # the stat data of the files last hashed: only for the corpus itself (--staged
        # validates a scratch copy, written anew every run)
        own = key_root is None or key_root == root
        self._stats = cache.file_stats(root) if cache is not None and own else None
        # the key's parts are taken now; the key itself (which fingerprints the tool: a stat
        # of each of its files) only when a cache asks for it
        self._context_of = (_bytes_or_empty(corpus.config_path), self.guard.context())

    def config(self) -> list[Finding]:
        """corpus.yaml: parse and schema (never cached: one file, read anyway)."""
        return self._shown(rules.check_config(self.corpus, self._relative, self.guard.inspect))

    def waiver(self, path: Path) -> list[Finding]:
        """A waiver: form, case, expiry (never cached: it depends on the day)."""
        found = rules.check_waiver(
            self.corpus, path, self.today, self._relative, self.guard.inspect
        )
        return self._shown(found)

    def whole(self) -> list[Finding]:
        """Rules over the whole corpus, meaningful once every file was checked in this run."""
        whole = self.guard.stale() + self.guard.split()
        return self._shown(whole + rules.check_layout(self.corpus, self._relative))

    def case(self, case_id: str, documents_wanted: bool = False) -> CheckedCase:
        """The findings of a case, and what of it is sound; `documents_wanted`: its parsed
        documents too, from the document cache when the findings were cached (replay)."""
        if self._cache is None or case_id in self._forgetting:  # never cached
            return self._fresh(case_id, self._files.read(case_id))
        trusted = self._trusted(case_id, documents_wanted)
        if trusted is not None:
            return trusted
        read = self._files.read_stat(case_id)
        if read is None:
            return self._fresh(case_id, None)
        raws, infos = read
        digests = {kind: stats.digest(raws[kind]) for kind in KINDS}
        key = case_key(self._context, case_id, [digests[k] for k in KINDS])
        trace_key = digests["trace"].hex()
        entry = self._cache.get(key)
        if entry is not None and infos is not None and self._stats is not None:
            self._stats.record(case_id, infos, digests)  # a cold run holds no table
        if entry is None:
            allowed = self.guard.allowed
            checked, entry = self._fresh_entry(case_id, raws)
            # A case that needed the allow-list is checked every time, so that the stale-entry
            # rule (which needs every use of every entry) sees it.
            if self.guard.allowed == allowed:
                self._cache.put(key, entry)
                self._cache.documents.put(key, checked.documents)
            return replace(checked, trace_key=trace_key)
        if entry.key_id is not None:
            self.guard.recorded(entry.key_id, case_id)
        valid = {kind: raws[kind] for kind in entry.valid}
        documents = self._documents(key, case_id, valid) if documents_wanted else {}
        return CheckedCase(self._shown(entry.findings), valid, documents, trace_key)

    def _trusted(self, case_id: str, documents_wanted: bool) -> CheckedCase | None:
        """The case from the caches alone, unread, when the file-stats table vouches for both
        its files and the caches hold all that is asked for; None: read it."""
        assert self._cache is not None
        digests = self._stats.trusted(case_id) if self._stats is not None else None
        if digests is None:
            return None
        key = case_key(self._context, case_id, [digests[k] for k in KINDS])
        entry = self._cache.get(key)
        if entry is None:
            return None
        documents: dict[str, Any] = {}
        if documents_wanted and entry.valid:
            kept = self._cache.documents.get(key)
            if kept is None or set(kept) != set(entry.valid):
                return None
            documents = kept
        if entry.key_id is not None:
            self.guard.recorded(entry.key_id, case_id)
        return CheckedCase(self._shown(entry.findings), {}, documents, digests["trace"].hex())

    @functools.cached_property
    def _context(self) -> str:
        return context_key(*self._context_of)

    def _documents(self, key: str, case_id: str, valid: dict[str, bytes]) -> dict[str, Any]:
        """The parsed documents of a case's valid files: kept ones, else parsed and kept."""
        assert self._cache is not None
        kept = self._cache.documents.get(key)
        if kept is not None and set(kept) == set(valid):
            return kept
        try:  # a missing, stale or refused entry: parse again (the files were valid)
            parsed = {
                kind: files.parse_yaml(raw, self._path(case_id, kind))
                for kind, raw in valid.items()
            }
        except InputError:
            return {}  # load_case reads the files again and says what is wrong
        self._cache.documents.put(key, parsed)
        return parsed

    def _fresh(self, case_id: str, raws: dict[str, bytes] | None) -> CheckedCase:
        valid: rules.Valid = {}
        read = None if raws is None else self._reader(case_id, raws)
        found = self._shown(
            rules.check_case(
                self.corpus,
                case_id,
                self._relative,
                self.guard.inspect,
                valid,
                read,
                self._forgetting,
            )
        )
        kinds = _kinds(valid)
        documents = {kind: valid[self._path(case_id, kind)] for kind in kinds}
        return CheckedCase(found, {k: raws[k] for k in kinds} if raws else {}, documents)

    def _fresh_entry(self, case_id: str, raws: dict[str, bytes]) -> tuple[CheckedCase, Entry]:
        valid: rules.Valid = {}
        records = self.guard.records
        found = rules.check_case(
            self.corpus,
            case_id,
            self._relative,
            self.guard.inspect,
            valid,
            self._reader(case_id, raws),
        )
        kinds = tuple(_kinds(valid))
        key_id = self.guard.last_key_id if self.guard.records > records else None
        entry = Entry(tuple(found), kinds, key_id)
        documents = {kind: valid[self._path(case_id, kind)] for kind in kinds}
        valid_raws = {kind: raws[kind] for kind in kinds}
        return CheckedCase(self._shown(entry.findings), valid_raws, documents), entry

    def _reader(self, case_id: str, raws: dict[str, bytes]) -> rules.Read:
        by_path = {self._path(case_id, kind): raws[kind] for kind in KINDS}
        return by_path.__getitem__

    def _path(self, case_id: str, kind: str) -> Path:
        return self.corpus.cases_dir / case_id / f"{kind}.yaml"

    def _shown(self, findings: Iterable[Finding]) -> list[Finding]:
        root = self.corpus.root
        return [replace(f, path=self.show(root / f.path)) for f in findings]


def _kinds(valid: rules.Valid) -> list[str]:
    """The kinds of the files in `valid` (a case's, so at most one of each)."""
    return [kind for kind in KINDS if any(p.name == f"{kind}.yaml" for p in valid)]


class _CaseReader:
    """Both files of a case, read as `files.read_bytes(..., within=root)` reads them; None
    when one cannot be (validation then reads it again and says why).

    The same answer for less: where cases/ is no symlink, a case directory that is none and a
    file opened without following a link (O_NOFOLLOW) are plainly inside the corpus, which is
    all the `within` check asks (it costs an lstat per name below the root, per file); a
    regular file within the size limit is then read from the open descriptor. Anything else
    (a link, a device, a file too big or growing, an error, a system without O_NOFOLLOW) takes
    read_bytes itself. At 100,000 cases: 60 us of 300 per case, at a load of 10.
    """

    def __init__(self, corpus: Corpus) -> None:
        self._corpus = corpus
        self._limit = files.input_limit()
        self._cases = os.fspath(corpus.cases_dir)
        self._plain = files.NOFOLLOW != 0 and not corpus.cases_dir.is_symlink()

    def read(self, case_id: str) -> dict[str, bytes] | None:
        read = self.read_stat(case_id)
        return None if read is None else read[0]

    def read_stat(
        self, case_id: str
    ) -> tuple[dict[str, bytes], dict[str, os.stat_result] | None] | None:
        """`read`, with each file's stat data where both were read plainly (else None)."""
        folder = f"{self._cases}{os.sep}{case_id}"
        plain = self._plain and not os.path.islink(folder)
        raws = {}
        infos: dict[str, os.stat_result] | None = {}
        for kind in KINDS:
            path = f"{folder}{os.sep}{kind}.yaml"
            read = files.read_plain_stat(path, self._limit) if plain else None
            if read is not None:
                raws[kind] = read[0]
                if infos is not None:
                    infos[kind] = read[1]
                continue
            infos = None
            try:
                raws[kind] = files.read_bytes(Path(path), within=self._corpus.root)
            except InputError:
                return None
        return raws, infos


def _bytes_or_empty(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


class Caches:
    """The findings caches of a run, one per cache file (corpora of one repository share one)."""

    def __init__(self, environ: Mapping[str, str], enabled: bool = True) -> None:
        self._environ = environ
        self._enabled = enabled
        self._open: dict[Path, FindingsCache] = {}

    def get(self, root: Path) -> FindingsCache | None:
        """The cache for the corpus at `root`; None when caching is off or has no place."""
        where = cache_dir(root, self._environ) if self._enabled else None
        if where is None:
            return None
        if where not in self._open:
            self._open[where] = FindingsCache.load(where)
        return self._open[where]

    def save(self) -> None:
        """Write back every cache that learned something."""
        for cache in self._open.values():
            cache.save()


def pending_forget(corpus: Corpus, show: rules.Show) -> tuple[frozenset[str], list[Finding]]:
    """Cases an interrupted forget still has to remove (their advice is to finish it)."""
    try:
        plan = erasure.pending(corpus)
    except InputError as err:
        path = err.path or corpus.root
        return frozenset(), [Finding(show(path), None, "$", recovery.FORGET_RULE, err.message)]
    return frozenset(plan.cases if plan else ()), []


def relative_to(cwd: Path) -> rules.Show:
    """Paths in findings: relative to the current directory, as the user typed them."""

    def show(path: Path) -> str:
        try:
            return os.path.relpath(path, cwd)
        except ValueError:  # another drive on Windows
            return str(path)

    return show
