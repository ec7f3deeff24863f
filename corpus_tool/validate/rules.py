"""Checks of corpus files: parse, schema, versions, completeness, cross-file links, waivers."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from corpus_tool.errors import InputError, UsageError
from corpus_tool.io import files, schema, yaml_lines
from corpus_tool.io.yaml_build import ScalarExtent
from corpus_tool.model import check_guide
from corpus_tool.model.checks import WAIVABLE
from corpus_tool.model.config import Config, WaiversSection, unregistered_scorer
from corpus_tool.model.findings import Finding
from corpus_tool.model.waiver import Waiver
from corpus_tool.store.corpus import (
    CONFIG_NAME,
    Corpus,
    check_case_id,
    derived_source,
    is_case_id,
    outside_links,
    outside_message,
    twins,
)
from corpus_tool.validate import completeness

Show = Callable[[Path], str]
Valid = dict[Path, Any]
"""Case files found schema-valid in this run, by path: `check` replays from them, unparsed again."""


@dataclass(frozen=True)
class Document:
    """A parsed YAML file, with the JSON-path -> line map computed only when needed."""

    path: Path
    raw: bytes
    data: Any
    spans: list[ScalarExtent] | None = None
    """Where scalars holding `#` are written (None: unknown), to tell comments from text."""

    @property
    def plain(self) -> bool:
        """Built by the loader's fast path: only JSON types, so the compiled schema applies."""
        return self.spans is not None

    @functools.cached_property
    def _lines(self) -> dict[tuple[str | int, ...], int]:
        return yaml_lines.lines_of(self.raw)

    def line(self, where: tuple[str | int, ...]) -> int | None:
        return yaml_lines.line_of(self._lines, where)


Read = Callable[[Path], bytes]
"""The bytes of a file, already read (the findings cache reads each case file once)."""


def load(
    path: Path, show: Show, root: Path | None = None, read: Read | None = None
) -> Document | Finding:
    """The parsed document, or a finding saying why it cannot be read (never an exception).

    With `root`, a file a symlink takes outside it is a finding, never read.
    """
    try:
        raw = read(path) if read is not None else files.read_bytes(path, within=root)
        return Document(path, raw, *files.parse_yaml_spans(raw, path))
    except InputError as err:
        return Finding(show(path), err.line, "$", "parse", err.message)


Inspect = Callable[[Document], list[Finding]]
"""A further check of every parsed file (the redaction guard)."""


def _inspected(doc: Document, inspect: Inspect | None) -> list[Finding]:
    return inspect(doc) if inspect is not None else []


def check_document(doc: Document, kind: str, show: Show) -> list[Finding]:
    """Schema version and schema errors of one document."""
    problem = schema.version_problem(kind, doc.data)
    if problem:
        return [
            Finding(
                show(doc.path),
                doc.line(("schema_version",)),
                "$.schema_version",
                "schema.version",
                problem,
            )
        ]
    if not isinstance(doc.data, dict):
        return [Finding(show(doc.path), 1, "$", "schema", f"a {kind} file must be a mapping")]
    return [
        Finding(
            show(doc.path),
            doc.line(tuple(e.absolute_path)),
            schema.json_path(e.absolute_path),
            "schema",
            _message(e, kind),
        )
        for e in schema.errors(kind, doc.data, doc.plain)
    ]


def _message(error: Any, kind: str) -> str:
    if error.validator == "not" and "result" in str(error.validator_value):
        return "a tool_call has both result and error; keep one"
    where = tuple(error.absolute_path)
    if kind == "expected" and where[:1] == ("expect",):  # say how the check is written
        return f"{error.message}; {check_guide.hint(where[1:])}"
    return str(error.message)


def check_config(corpus: Corpus, show: Show, inspect: Inspect | None = None) -> list[Finding]:
    """corpus.yaml parses and fits its schema."""
    doc = load(corpus.root / CONFIG_NAME, show)
    if isinstance(doc, Finding):
        return [doc]
    if doc.data is None:
        return []
    found = check_document(doc, "corpus", show) + _inspected(doc, inspect)
    default = (doc.data.get("replay") or {}) if isinstance(doc.data, dict) else {}
    if not found and isinstance(default, dict) and isinstance(default.get("scorer"), str):
        scorers = Config.from_document(doc.data).scorers  # this rule's own reading of the file
        found.extend(_scorer_named(doc, ("replay", "scorer"), scorers, show))
    return found


def check_layout(corpus: Corpus, show: Show) -> list[Finding]:
    """cases/ and waivers/ are directories when present (a file there hides every case), and
    neither they nor corpus.yaml is a link out of the corpus (writing commands refuse those),
    and no two case directories are one name to macOS or Windows."""
    ids = corpus.case_ids()  # listed once: 100,000 directories are no small read
    found = _twin_cases(corpus, ids, show) + [
        Finding(
            show(where),
            None,
            "$",
            "corpus.layout",
            f"{where.name} is not a directory; move it aside and run `corpus init`",
        )
        for where in (corpus.cases_dir, corpus.waivers_dir)
        if where.exists() and not where.is_dir()
    ]
    found += [
        Finding(show(path), None, "$", "corpus.layout", outside_message(path, target))
        for path, target in outside_links(corpus)
    ]
    return found + _orphan_variants(corpus, set(ids), show)


def _orphan_variants(corpus: Corpus, ids: set[str], show: Show) -> list[Finding]:
    """A derived case (`corpus vary`) whose source case is gone: it tests a case no longer kept."""
    found: list[Finding] = []
    for case_id in sorted(ids):
        source = derived_source(case_id) if is_case_id(case_id) else None
        if source is not None and source not in ids:
            message = (
                f"variant {case_id!r} is derived from case {source!r}, which is gone; "
                f"remove the variant, or derive it again from a kept case (`corpus vary`)"
            )
            found.append(
                Finding(show(corpus.cases_dir / case_id), None, "$", "case.derived", message)
            )
    return found


def _twin_cases(corpus: Corpus, ids: list[str], show: Show) -> list[Finding]:
    found: list[Finding] = []
    # A valid id folds to itself and no two valid ids fold alike: only a directory whose name
    # is no id can make a pair, so a corpus of ids alone is not folded name by name.
    if all(map(is_case_id, ids)):
        return found
    for group in twins(ids):
        for name in group:
            others = ", ".join(repr(n) for n in group if n != name)
            message = (
                f"case directory {name!r} and {others} differ only in case, Unicode "
                "normalization or trailing dots: macOS and Windows hold only one of them; "
                "rename all but one"
            )
            found.append(Finding(show(corpus.cases_dir / name), None, "$", "case.id", message))
    return found


def check_case(
    corpus: Corpus,
    case_id: str,
    show: Show,
    inspect: Inspect | None = None,
    valid: Valid | None = None,
    read: Read | None = None,
    forgetting: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Both files of a case: schema, ids, completeness; schema-valid files go into `valid`.

    `read` gives the bytes of a file when they are already in hand; `forgetting`: cases an
    interrupted `corpus forget` still has to remove.
    """
    case_dir = corpus.cases_dir / case_id
    found: list[Finding] = list(_dir_name(case_dir, show))
    docs: dict[str, Document] = {}
    for name, kind in (("trace.yaml", "trace"), ("expected.yaml", "expected")):
        path = case_dir / name
        if not path.is_file():
            found.append(
                Finding(show(path), None, "$", "case.files", _missing(case_id, name, forgetting))
            )
            continue
        doc = load(path, show, corpus.root, read)
        if isinstance(doc, Finding):
            found.append(doc)
            continue
        problems = check_document(doc, kind, show)
        if not problems and valid is not None:
            valid[path] = doc.data
        found.extend(problems)
        found.extend(_inspected(doc, inspect))
        found.extend(_id_matches(doc, case_id, show))
        docs[kind] = doc
    if "expected" in docs:
        found.extend(_case_scorer(docs["expected"], corpus, show))
    trace = docs.get("trace")
    if trace is not None and isinstance(trace.data, dict):
        found.extend(_completeness(trace, _accepted(docs.get("expected")), show))
    return found


SCORER_PATH = ("expect", "output", "similar", "scorer")


def _case_scorer(doc: Document, corpus: Corpus, show: Show) -> list[Finding]:
    """A case may name only a scorer corpus.yaml registers: a case file never chooses code."""
    node: Any = doc.data
    for key in SCORER_PATH:
        node = node.get(key) if isinstance(node, dict) else None
    if node is None:
        return []
    return _scorer_named(doc, SCORER_PATH, corpus.config.scorers, show)


def _scorer_named(
    doc: Document, where: tuple[str, ...], scorers: Mapping[str, str], show: Show
) -> list[Finding]:
    node: Any = doc.data
    for key in where:
        node = node[key]
    message = unregistered_scorer(node, scorers)
    if message is None:
        return []
    path = "$." + ".".join(where)
    return [Finding(show(doc.path), doc.line(where), path, "scorer.unregistered", message)]


def _missing(case_id: str, name: str, forgetting: frozenset[str]) -> str:
    if case_id in forgetting:  # re-adding would bring back the person being erased
        return (
            f"case {case_id} has no {name}: an interrupted `corpus forget` is removing it; "
            "rerun `corpus forget` to finish. Never re-add it"
        )
    return (
        f"case {case_id} has no {name}; restore it from git, re-add the case with "
        "`corpus add --force`, or remove the case whole"
    )


def _dir_name(case_dir: Path, show: Show) -> Iterator[Finding]:
    """A directory under cases/ whose name is no case id cannot be replayed or selected."""
    try:
        check_case_id(case_dir.name)
    except UsageError as err:
        yield Finding(show(case_dir), None, "$", "case.id", f"{err.message}; rename the directory")


def _accepted(expected: Document | None) -> set[str]:
    """Completeness problems a known_unknown case recorded at `add --allow-incomplete`."""
    data = expected.data if expected is not None else None
    if not isinstance(data, dict) or data.get("status") != "known_unknown":
        return set()
    return {str(p) for p in data.get("incomplete") or []}


def _id_matches(doc: Document, case_id: str, show: Show) -> Iterator[Finding]:
    if isinstance(doc.data, dict) and "id" in doc.data and doc.data["id"] != case_id:
        yield Finding(
            show(doc.path),
            doc.line(("id",)),
            "$.id",
            "case.id",
            f"id {doc.data['id']!r} does not match its directory {case_id!r}",
        )
    yield from _derived_matches(doc, case_id, show)


def _derived_matches(doc: Document, case_id: str, show: Show) -> Iterator[Finding]:
    """`derived_from` names the source the id names, and a derived id has it (both files)."""
    if not isinstance(doc.data, dict) or not is_case_id(case_id):
        return
    named, source = doc.data.get("derived_from"), derived_source(case_id)
    if named == source:
        return
    if source is None:
        message = (
            f"derived_from: {named!r}, but {case_id!r} is no derived id (<source id>~<kind>-"
            "<tool>); remove derived_from, or rename the case with `corpus mv`"
        )
    elif named is None:
        message = f"a derived case's id, but no derived_from; add derived_from: {source}"
    else:
        message = f"derived_from {named!r} differs from the source {source!r} its id names"
    where = ("derived_from",) if named is not None else ("id",)
    yield Finding(show(doc.path), doc.line(where), "$." + where[0], "case.derived", message)


def _completeness(doc: Document, accepted: set[str], show: Show) -> Iterator[Finding]:
    for problem in completeness.problems(doc.data):
        if problem.message in accepted:
            continue
        yield Finding(
            show(doc.path),
            doc.line(problem.where),
            schema.json_path(problem.where),
            problem.rule,
            problem.message,
        )


def check_waiver(
    corpus: Corpus, path: Path, today: date, show: Show, inspect: Inspect | None = None
) -> list[Finding]:
    """A waiver: schema, id = file name, an existing case, not expired, not too far ahead."""
    doc = load(path, show, corpus.root)
    if isinstance(doc, Finding):
        return [doc]
    found = check_document(doc, "waiver", show)
    if found or not isinstance(doc.data, dict):
        return found + _inspected(doc, inspect)
    found.extend(_inspected(doc, inspect))

    def at(key: str, rule: str, message: str) -> Finding:
        return Finding(show(path), doc.line((key,)), f"$.{key}", rule, message)

    try:
        waiver = Waiver.from_doc(doc.data)
    except ValueError as err:
        return [*found, at("expires", "waiver.expires", str(err))]
    return found + waiver_findings(corpus, waiver, path.stem, today, at)


Place = Callable[[str, str, str], Finding]
"""Makes a finding at a top-level key of the file: (key, rule, message)."""


def waiver_findings(
    corpus: Corpus, waiver: Waiver, stem: str, today: date, at: Place
) -> list[Finding]:
    """What is wrong with a schema-valid waiver: its id, case, checks and expiry."""
    found: list[Finding] = []
    if waiver.id != stem:
        found.append(
            at("id", "waiver.id", f"id {waiver.id!r} does not match the file name {stem!r}")
        )
    if waiver.case and not (corpus.cases_dir / waiver.case).is_dir():
        found.append(at("case", "waiver.case", f"names case {waiver.case!r}, which does not exist"))
    unknown = sorted(set(waiver.checks) - set(WAIVABLE))
    if unknown:
        found.append(
            at(
                "checks",
                "waiver.checks",
                f"unknown check {', '.join(unknown)}; known: {', '.join(WAIVABLE)}",
            )
        )
    found.extend(_expiry(waiver, today, corpus.config.waivers, at))
    return found


def _expiry(waiver: Waiver, today: date, policy: WaiversSection, at: Place) -> Iterator[Finding]:
    if not waiver.active(today):
        yield at(
            "expires",
            "waiver.expired",
            f"expired on {waiver.expires}; renew it with a new reason or delete it",
        )
    days = policy.days
    start = waiver.created or today
    if waiver.expires > start + timedelta(days=days):
        which = (
            "waivers.max_days"
            if policy.max_days is not None
            else "waivers.max_days unset: the default"
        )
        yield at(
            "expires",
            "waiver.max_days",
            f"expires {waiver.expires}, more than {days} days after {start} ({which})",
        )
