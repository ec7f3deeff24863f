"""`corpus add`: ingest one incident as a case (trace.yaml + a drafted expected.yaml)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any, TextIO

from corpus_tool import ingest, redact
from corpus_tool.author.assemble import assemble, derive_case_id, slice_body
from corpus_tool.author.draft import draft
from corpus_tool.errors import IncompleteError, InputError, UsageError
from corpus_tool.grade import grade_checks
from corpus_tool.ingest.imported import Imported
from corpus_tool.io import files, schema
from corpus_tool.minimize.case import Asked, shrink_case
from corpus_tool.minimize.pooled import workers
from corpus_tool.minimize.render import summary as shrink_summary
from corpus_tool.minimize.stale import stale
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace
from corpus_tool.redact.guard import redaction_allow_list
from corpus_tool.redact.rotation import check_key
from corpus_tool.store import recovery, staging
from corpus_tool.store.corpus import Corpus, check_case_id
from corpus_tool.store.faults import NO_STEPS, StepCounter
from corpus_tool.validate import completeness


@dataclass(frozen=True)
class AddOptions:
    """What the command line asked of `corpus add`."""

    incident: Path
    case_id: str | None = None
    start: int | None = None
    end: int | None = None
    tier: str = "fast"
    force: bool = False
    allow_incomplete: bool = False
    source_format: str = "auto"
    output: str = "text"
    select: str | None = None
    all_runs: bool = False
    keep_going: bool = False
    tools_log: Path | None = None
    minimize: bool = False
    timeout_s: float | None = None
    """--timeout: the limit of one replay while minimizing (None: replay.timeout_s, else 60 s)."""


def add(
    corpus: Corpus,
    options: AddOptions,
    out: TextIO,
    environ: Mapping[str, str] | None = None,
    err: TextIO | None = None,
) -> int:
    """Ingest the incident; on any refusal nothing of the case is written.

    Every value of the trace is redacted with the corpus key (from `environ`, default the
    process environment) before anything is written; without a key nothing is.
    A file with many runs (benchmark results) needs `--select` (one run) or `--all` (each
    run its own case). `--all` is all-or-nothing: every run is checked before any is written.
    Interrupted writes found in the corpus are finished or undone first (noted on `err`).
    """
    environ = os.environ if environ is None else environ
    if options.case_id is not None:
        check_case_id(options.case_id)
    planned = plan_file(corpus, options, corpus_redactor(corpus, environ))
    write_planned(corpus, planned, options.force, StepCounter.from_environ(environ), err)
    report(corpus, planned, options.output, out)
    return 0


def corpus_redactor(corpus: Corpus, environ: Mapping[str, str]) -> redact.Redactor:
    """What the command redacts with: the corpus key (refused when it is not the corpus's: one
    corpus, one key), `redaction.drop_keys`, and the active redaction waivers, whose values are
    not personal data (a support address in the agent's own prompt) and are kept as they are, so
    an unchanged agent's requests still match the recording."""
    key = redact.load_key(corpus.config, corpus.root, environ)
    check_key(key, corpus)
    drop = corpus.setting("redaction", "drop_keys", default=[]) or []
    allow = redaction_allow_list(corpus.waiver_paths(), key, date.today())
    return redact.Redactor(key, tuple(str(name) for name in drop), allow)


def plan_file(corpus: Corpus, options: AddOptions, redactor: redact.Redactor) -> list[Planned]:
    """Every case of `options.incident`, checked and ready to write; nothing is written."""
    raw = ingest.read_incident(options.incident)
    data, importer = ingest.parse(raw, options.incident, options.source_format)
    runs = _chosen(ingest.load(importer, data, options.incident), options)
    if options.tools_log is not None:
        runs = [_paired(runs, options)]
    sha = hashlib.sha256(raw).hexdigest()
    planned = [_plan(corpus, run, options, (sha, redactor), len(runs) > 1) for run in runs]
    _refuse_twins(planned, options)
    _refuse_incomplete(planned, options)
    if options.minimize:
        planned = _minimized(corpus, planned, options)
    return planned


def _minimized(corpus: Corpus, planned: list[Planned], options: AddOptions) -> list[Planned]:
    """Each planned case shrunk to the events that reproduce its drafted trigger.

    The draft is the incident's, not a reviewer's: it is drafted again from the shrunk trace.
    While shrinking, its `tools.required` (every tool the whole incident called) is left out,
    or no candidate without an unrelated call could reproduce the failure "and fail nothing
    more". The agent runs in one replay worker for the file's cases, as in `corpus minimize`.
    """
    out, incident = [], options.incident
    with workers(corpus, options.timeout_s) as pool:
        for case in planned:
            trace = Trace.from_doc(case.doc)
            expected = Expected.from_doc(files.parse_yaml(case.expected, incident))
            graded_by = _without_required(expected)
            result, mode = shrink_case(corpus, trace, graded_by, pool, Asked(), grader=grade_checks)
            doc = result.trace.to_doc()
            text = draft(case.case_id, doc, expected.tier, case.incomplete)
            redrafted = Expected.from_doc(files.parse_yaml(text, incident))
            shrunk = shrink_summary(result, mode, stale(redrafted, result.before, result.trace))
            out.append(replace(case, doc=doc, expected=text, minimized=shrunk))
    return out


def _without_required(expected: Expected) -> Expected:
    tools = expected.expect.tools
    if tools is None or tools.required is None:
        return expected
    return replace(expected, expect=replace(expected.expect, tools=replace(tools, required=None)))


def write_planned(
    corpus: Corpus,
    planned: list[Planned],
    force: bool,
    steps: StepCounter = NO_STEPS,
    err: TextIO | None = None,
) -> None:
    """Write checked cases, each in one rename under its lock, every lock taken first.

    Interrupted writes in the corpus are finished or undone before (noted on `err`); a case
    another command is writing stops the whole write with BusyError before anything changes.
    """
    if not planned:
        return
    corpus.check_no_twins(case.case_id for case in planned)  # one listing for a whole batch
    for note in recovery.recover(corpus, steps):
        if err is not None:
            err.write(f"corpus add: {note}\n")
    with contextlib.ExitStack() as stack:
        for case in planned:
            stack.enter_context(staging.locked(case.target, steps))
        for case in planned:
            staging.write_case(case.target, files.dump_yaml(case.doc), case.expected, force, steps)


@dataclass(frozen=True)
class Planned:
    """A case checked and ready to be written."""

    case_id: str
    target: Path
    doc: dict[str, Any]
    expected: str
    incomplete: list[str]
    label: str | None
    minimized: dict[str, Any] | None = None
    hint: str | None = None  # how to complete an incomplete run (Imported.hint)
    keeps_expected: bool = False  # --force over a case: its reviewed expected.yaml stays


def _chosen(runs: list[Imported], options: AddOptions) -> list[Imported]:
    """The runs the command line asked for."""
    if options.select is not None:
        hits = [r for r in runs if options.select in (r.label, r.task_id)]
        if len(hits) != 1:
            raise InputError(_select_message(runs, hits, options.select), options.incident)
        return hits
    if len(runs) > 1 and not options.all_runs:
        raise InputError(
            f"the file holds {len(runs)} runs ({_labels(runs)}); "
            "pass --select TASK_ID for one, or --all for each as its own case",
            options.incident,
        )
    if not runs:
        raise InputError("the file holds no runs", options.incident)
    return runs


def _paired(runs: list[Imported], options: AddOptions) -> Imported:
    """The one run `--tools-log` completes (its seq numbers are renumbered: no slicing)."""
    assert options.tools_log is not None
    if len(runs) != 1:
        raise UsageError("--tools-log completes one run; pick it with --select")
    if options.start is not None or options.end is not None:
        raise UsageError("--tools-log renumbers the events; add the paired case, then slice it")
    return ingest.with_tools_log(runs[0], options.tools_log)


def _select_message(runs: list[Imported], hits: list[Imported], wanted: str) -> str:
    if hits:
        return f"--select {wanted} matches {len(hits)} runs ({_labels(hits)}); select by label"
    return f"no run with task id or label {wanted!r}; the file holds: {_labels(runs)}"


def _labels(runs: list[Imported], most: int = 8) -> str:
    names = [r.label or r.trace_id or "?" for r in runs[:most]]
    return ", ".join(names) + (f", ... ({len(runs)} in all)" if len(runs) > most else "")


def _plan(
    corpus: Corpus,
    run: Imported,
    options: AddOptions,
    source: tuple[str, redact.Redactor],
    many: bool,
) -> Planned:
    if many:
        prefix = f"{options.case_id}-" if options.case_id else ""
        case_id = check_case_id(derive_case_id(run, options.incident, prefix))
    else:
        case_id = check_case_id(options.case_id or derive_case_id(run, options.incident))
    target = corpus.case_dir(case_id)
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} exists and is not a case directory; move it aside")
    if target.exists() and not options.force:
        raise UsageError(
            f"case {case_id!r} exists at {target}; pass --force to re-add it, or --id NEW"
        )
    sha, redactor = source
    body = _redacted(slice_body(run.body, options.start, options.end), redactor)
    found = [p.message for p in completeness.problems(body)]
    if found and options.allow_incomplete:
        body = completeness.mark_missing(body)
    doc = assemble(case_id, run, body, sha, (options.start, options.end))
    _redact_source(doc, redactor)
    if not found or options.allow_incomplete:  # an incomplete run is refused for that first
        _check_schema(doc, options.incident)
        doc = Trace.from_doc(doc).to_doc()  # the model's key order: a re-read changes no byte
    expected = draft(case_id, body, options.tier, found)
    keeps = (target / "expected.yaml").is_file()  # only with --force: an existing case
    return Planned(
        case_id, target, doc, expected, found, run.label, hint=run.hint, keeps_expected=keeps
    )


def _redacted(body: dict[str, Any], redactor: redact.Redactor) -> dict[str, Any]:
    """The body with every detected value pseudonymised (but those the allow-list names) and
    the `redaction` record added."""
    clean, replaced = redactor(body)
    record = {"policy": redact.POLICY, "key_id": redactor.key.key_id, "replaced": replaced}
    return {**clean, "redaction": record}


def _redact_source(doc: dict[str, Any], redactor: redact.Redactor) -> None:
    """Trace and session ids are redacted too (an id can embed a phone number or an email)."""
    clean, replaced = redactor(doc["source"])
    doc["source"] = clean
    doc["redaction"]["replaced"] += replaced


def _refuse_twins(planned: list[Planned], options: AddOptions) -> None:
    """Two runs of one file must not land in one case directory."""
    seen: dict[str, str | None] = {}
    for case in planned:
        if case.case_id in seen:
            raise InputError(
                f"runs {seen[case.case_id]} and {case.label} would both become case "
                f"{case.case_id!r}; add them one by one with --select and --id",
                options.incident,
            )
        seen[case.case_id] = case.label


def _refuse_incomplete(planned: list[Planned], options: AddOptions) -> None:
    bad = [p for p in planned if p.incomplete]
    if not bad or options.allow_incomplete:
        return
    if len(planned) == 1:
        raise IncompleteError(options.incident, bad[0].incomplete, bad[0].hint)
    problems = [f"run {p.label or p.case_id}: {p.incomplete[0]}" for p in bad]
    raise IncompleteError(options.incident, problems)


def _check_schema(doc: dict[str, Any], incident: Path) -> None:
    """An incident whose values do not fit the trace model is refused with the first misfit."""
    problems = schema.errors("trace", doc, plain=_plain(doc))
    if problems:
        first = problems[0]
        raise InputError(
            f"cannot be stored: {schema.json_path(first.absolute_path)}: {first.message}", incident
        )


_JSON_SCALARS = (str, int, float, bool, type(None))


def _plain(doc: Any) -> bool:
    """True when `doc` holds only what JSON holds (dicts with string keys, lists, scalars):
    the compiled schema check may then answer for it (schema.errors)."""
    stack = [doc]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is dict:
            if not all(type(k) is str for k in value):
                return False
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
        elif kind not in _JSON_SCALARS:
            return False
    return True


def report(corpus: Corpus, planned: list[Planned], output: str, out: TextIO) -> None:
    summaries = [case_summary(corpus, p) for p in planned]
    if output == "json":
        doc: Any = summaries[0] if len(summaries) == 1 else summaries
        out.write(files.json_text(doc))
        return
    for case, summary in zip(planned, summaries, strict=True):
        where = summary["path"]
        out.write(f"added case {case.case_id}: {summary['events']} events -> {where}\n")
        record = case.doc.get("redaction") or {}
        out.write(f"  redacted {record.get('replaced', 0)} values (key {record.get('key_id')})\n")
        for problem in case.incomplete:
            out.write(f"  incomplete: {problem}\n")
        if case.minimized is not None:
            shrunk = case.minimized
            out.write(
                f"  minimized ({shrunk['trigger']}): {shrunk['before']['events']} -> "
                f"{shrunk['after']['events']} events in {shrunk['replays']} replay(s)\n"
            )
            out.writelines(f"  review expected.yaml: {note}\n" for note in shrunk["stale"])
        expected = Path(where) / "expected.yaml"
        if case.keeps_expected:
            out.write(
                f"  kept the reviewed {expected} (not redrafted); check that its expectations "
                "still fit the new trace\n"
            )
        else:
            out.write(f"  review {expected} (lines marked REVIEW) before committing\n")


def case_summary(corpus: Corpus, case: Planned) -> dict[str, Any]:
    return {
        "case": case.case_id,
        "path": str(corpus.case_dir(case.case_id)),
        "format": case.doc["source"]["format"],
        "events": len(case.doc["events"]),
        "status": "known_unknown" if case.incomplete else "active",
        "incomplete": case.incomplete,
        "redacted": (case.doc.get("redaction") or {}).get("replaced", 0),
        "expected": "kept" if case.keeps_expected else "drafted",
        **({"minimized": case.minimized} if case.minimized is not None else {}),
    }
