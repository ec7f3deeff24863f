"""Enforcement for `corpus validate`: unredacted values in corpus files become findings.

Every parsed file (trace, expected, waiver, corpus.yaml) and its comments are scanned; a hit is a
finding `redaction.<detector>` at its file, line and JSON path, unless a redaction waiver allows
its keyed fingerprint. Messages never show the value itself: CI logs are as public as the repo.
A trace under another key than the one corpus.yaml names is `redaction.old_key`; a whole corpus
whose cases carry several keys, naming none, is `redaction.split_key` (see `rotation`).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from corpus_tool.errors import CorpusError
from corpus_tool.io import files, schema, yaml_lines
from corpus_tool.io.yaml_build import ScalarExtent
from corpus_tool.model.config import RedactionSection
from corpus_tool.model.findings import Finding
from corpus_tool.redact.allowlist import AllowList, fingerprint
from corpus_tool.redact.comments import yaml_comments
from corpus_tool.redact.keys import RedactionKey, load_key
from corpus_tool.redact.rotation import old_key_message, split_message, trace_key_id
from corpus_tool.redact.scanner import Memo, RawHit, Walk
from corpus_tool.store.corpus import CONFIG_NAME

Show = Callable[[Path], str]
MEMO_ENTRIES = 20_000
"""Scanned strings remembered across files: enough for a conversation, bounded in memory."""
FIX = "replace it by its pseudonym (`corpus add --force` rewrites a trace) or remove it"


class Scanned(Protocol):
    """A parsed corpus file, as validation holds it."""

    @property
    def path(self) -> Path: ...
    @property
    def raw(self) -> bytes: ...
    @property
    def data(self) -> Any: ...
    @property
    def spans(self) -> Sequence[ScalarExtent] | None: ...
    def line(self, where: tuple[str | int, ...]) -> int | None: ...


class Guard:
    """Scans files of one corpus; remembers which allow-list entries matched."""

    def __init__(self, key: RedactionKey | None, allow: AllowList | None, setup: _Setup):
        self._key = key
        self._allow = allow
        self._setup = setup
        self.problems: list[Finding] = list(setup.problems)
        self._memo = Memo()
        self._key_ids: dict[str, list[str]] = {}  # key id -> the cases whose trace carries it
        self.records = 0  # traces whose key id was noted so far
        self.last_key_id: str | None = None  # the latest of them

    def inspect(self, doc: Scanned) -> list[Finding]:
        """Findings for every unredacted value in a parsed file and its comments, and for a
        trace under another key than the current one."""
        return self._values(doc) + self._old_key(doc)

    def split(self) -> list[Finding]:
        """A corpus whose cases carry several key ids and whose corpus.yaml names none
        (meaningful after a whole-corpus scan)."""
        if self._setup.current_key_id is not None or len(self._key_ids) < 2:
            return []
        path = self._setup.config_path
        line = yaml_lines.line_at(path.read_bytes(), ("redaction",)) if path.is_file() else None
        message = split_message(self._key_ids)
        where = self._setup.show(path)
        return [Finding(where, line, "$.redaction", "redaction.split_key", message)]

    def _old_key(self, doc: Scanned) -> list[Finding]:
        key_id = trace_key_id(doc.data) if doc.path.name == "trace.yaml" else None
        if key_id is None:
            return []
        self.recorded(key_id, doc.path.parent.name)
        current = self._setup.current_key_id
        if current is None or key_id == current:
            return []
        line = doc.line(("redaction", "key_id"))
        message = old_key_message(key_id, current)
        where = self._setup.show(doc.path)
        return [Finding(where, line, "$.redaction.key_id", "redaction.old_key", message)]

    def recorded(self, key_id: str, case: str) -> None:
        """The trace of `case` carries `key_id` (also told for traces validation took from
        its cache, so that `split` sees every case)."""
        self._key_ids.setdefault(key_id, []).append(case)
        self.records += 1
        self.last_key_id = key_id

    def _values(self, doc: Scanned) -> list[Finding]:
        if len(self._memo) > MEMO_ENTRIES:  # strings repeat within a file more than across
            self._memo.clear()
        walk = Walk(None, self._setup.drop_keys, memo=self._memo)
        walk.value(doc.data)
        found = [self._finding(doc.path, doc.line(h.path), h) for h in walk.hits]
        for line, comment in yaml_comments(doc.raw.decode("utf-8", "replace"), doc.spans):
            walk = Walk(None, self._setup.drop_keys)
            walk.string(comment, ("(comment)",))
            found.extend(self._finding(doc.path, line, h) for h in walk.hits)
        return [f for f in found if f is not None]

    def context(self) -> str:
        """What this guard's findings depend on besides the file: drop keys, the key variable,
        the key's id, the allow-list (the findings cache keys entries with it)."""
        key_id = self._key.key_id if self._key is not None else None
        allowed = self._allow.active() if self._allow is not None else []
        return json.dumps([sorted(self._setup.drop_keys), self._setup.env, key_id, allowed])

    @property
    def allowed(self) -> int:
        """How many hits the allow-list has allowed so far."""
        return self._allow.matches if self._allow is not None else 0

    def stale(self) -> list[Finding]:
        """Allow-list entries that matched nothing (meaningful after a whole-corpus scan)."""
        if self._allow is None:
            return []
        return [self._setup.stale(waiver) for waiver in self._allow.unused()]

    def _finding(self, path: Path, line: int | None, hit: RawHit) -> Finding | None:
        if self._allow is not None and self._allow.allows(hit):
            return None
        label = hit.detector.replace("_", " ")
        if self._key is None:
            why = f"unredacted {label}: {FIX}; set {self._setup.env} to see its fingerprint "
            why += "and to apply redaction waivers"
        else:
            fp = fingerprint(hit.value, self._key, hit.detector)
            why = f"unredacted {label}, fingerprint {fp}: {FIX}; if it is not personal data, "
            why += "a redaction waiver with this fingerprint allows it"
        where = "$ (comment)" if hit.path == ("(comment)",) else schema.json_path(hit.path)
        return Finding(self._setup.show(path), line, where, f"redaction.{hit.detector}", why)


class _Setup:
    """What a guard needs from its corpus: drop keys, key name, waiver locations, problems."""

    def __init__(self, redaction: RedactionSection, show: Show, config_path: Path):
        self.drop_keys = list(redaction.drop_keys)
        self.env = redaction.key_env
        self.current_key_id = redaction.key_id
        self.config_path = config_path
        self.show = show
        self.problems: list[Finding] = []
        self.waivers: list[_Waiver] = []

    def stale(self, data: Mapping[str, Any]) -> Finding:
        """The finding for an allow-list entry that matched nothing."""
        waiver = next(w for w in self.waivers if w.data is data)
        line = yaml_lines.line_at(waiver.raw, ("fingerprint",))
        message = "allows a value that no corpus file holds any more; delete this waiver"
        return Finding(
            self.show(waiver.path), line, "$.fingerprint", "redaction.allow_unused", message
        )


class _Waiver(NamedTuple):
    path: Path
    raw: bytes
    data: dict[str, Any]


def open_guard(
    root: Path,
    redaction: RedactionSection,
    waiver_paths: Sequence[Path],
    environ: Mapping[str, str],
    today: datetime.date,
    show: Show,
) -> Guard:
    """A guard for the corpus at root: its key if there is one, its redaction waivers."""
    setup = _Setup(redaction, show, root / CONFIG_NAME)
    key = _key(root, redaction, environ, setup)
    setup.waivers = _waivers(waiver_paths)
    waivers = [w.data for w in setup.waivers]
    allow = AllowList(waivers, key, today) if key is not None and waivers else None
    return Guard(key, allow, setup)


def _key(
    root: Path, redaction: RedactionSection, environ: Mapping[str, str], setup: _Setup
) -> RedactionKey | None:
    if not environ.get(setup.env, "").strip() and not redaction.key_file:
        return None  # no key configured: detection works, the allow-list cannot
    try:
        return load_key(redaction, root, environ)
    except CorpusError as err:
        path = root / CONFIG_NAME
        line = (
            yaml_lines.line_at(path.read_bytes(), ("redaction", "key_file"))
            if path.is_file()
            else None
        )
        setup.problems.append(
            Finding(setup.show(path), line, "$.redaction", "redaction.key", err.message)
        )
        return None


def redaction_allow_list(
    waiver_paths: Sequence[Path], key: RedactionKey, today: datetime.date
) -> AllowList | None:
    """The allow-list of these waiver files (None when none is a redaction waiver)."""
    waivers = [w.data for w in _waivers(waiver_paths)]
    return AllowList(waivers, key, today) if waivers else None


def _waivers(paths: Sequence[Path]) -> list[_Waiver]:
    """Redaction waivers that parse; broken files are reported by the waiver checks."""
    found = []
    for path in paths:
        try:
            raw = files.read_bytes(path)
            data = files.parse_yaml(raw, path)
        except CorpusError:
            continue
        if isinstance(data, dict) and data.get("kind") == "redaction":
            found.append(_Waiver(path, raw, data))
    return found
