"""The `corpus add` pipeline: an incident file becomes cases checked and ready to write.

Each stage is one function from one frozen value to the next; a refusal anywhere raises a
CorpusError and nothing of the file is written:

    read        AddOptions -> Incident    the file read and sniffed, its runs chosen, its hash
    placed      Imported   -> Placed      the run's case id and directory (free, or --force)
    sliced      Placed     -> Sliced      the events in --start/--end
    redacted    Sliced     -> Redacted    every detected value pseudonymised, the record added
    checked     Redacted   -> Checked     what the recording lacks (marked: --allow-incomplete)
    assembled   Checked    -> Assembled   trace.yaml: source block, schema check, key order
    drafted     Assembled  -> Planned     expected.yaml drafted from the trace
    plan        the stages over every run of the file, then the file's refusals (twins,
                incomplete runs) and `minimized` (--minimize): the Planned cases
    add_incident  plan, then `author.write.write`: what `corpus add FILE` does (a long native
                incident: author.streamed, the same bytes, the events a batch at a time)
"""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any, TextIO

from corpus_tool import ingest, redact
from corpus_tool.author.assemble import assemble, derive_case_id, slice_body
from corpus_tool.author.draft import draft
from corpus_tool.author.runs import chosen, paired
from corpus_tool.author.stages import (
    AddOptions,
    Assembled,
    Checked,
    Incident,
    Placed,
    Planned,
    Redacted,
    Sliced,
)
from corpus_tool.author.write import write
from corpus_tool.errors import IncompleteError, InputError, UsageError
from corpus_tool.ingest.imported import Imported
from corpus_tool.io import schema
from corpus_tool.model.trace import Trace
from corpus_tool.redact.guard import redaction_allow_list
from corpus_tool.redact.rotation import check_key
from corpus_tool.store.corpus import Corpus, check_case_id
from corpus_tool.store.faults import StepCounter
from corpus_tool.validate import completeness


def add_incident(
    corpus: Corpus, options: AddOptions, environ: Mapping[str, str], err: TextIO | None = None
) -> tuple[Planned, ...]:
    """Plan every case of `options.incident` and write them; on any refusal nothing is written.

    Every value is redacted with the corpus key (from `environ`) first; without a key nothing
    is written. Interrupted writes found in the corpus are finished or undone first (noted on
    `err`).
    """
    if options.case_id is not None:
        check_case_id(options.case_id)
    redactor, steps = corpus_redactor(corpus, environ), StepCounter.from_environ(environ)
    from corpus_tool.author import streamed  # (it uses `placed`, below)

    if streamed.streamable(options):  # a long native incident: read and written as it goes
        case = streamed.add_streamed(corpus, options, redactor, steps, err)
        if case is not None:
            return (case,)
    planned = plan(corpus, options, redactor)
    write(corpus, planned, options.force, steps, err)
    return planned


def corpus_redactor(corpus: Corpus, environ: Mapping[str, str]) -> redact.Redactor:
    """What the command redacts with: the corpus key (refused when it is not the corpus's: one
    corpus, one key), `redaction.drop_keys`, and the active redaction waivers, whose values are
    not personal data (a support address in the agent's own prompt) and are kept as they are, so
    an unchanged agent's requests still match the recording."""
    key = redact.load_key(corpus.config.redaction, corpus.root, environ)
    check_key(key, corpus)
    drop = corpus.config.redaction.drop_keys
    allow = redaction_allow_list(corpus.waiver_paths(), key, date.today())
    return redact.Redactor(key, tuple(str(name) for name in drop), allow)


def plan(corpus: Corpus, options: AddOptions, redactor: redact.Redactor) -> tuple[Planned, ...]:
    """Every case of `options.incident`, checked and ready to write; nothing is written.

    A file with many runs (benchmark results) needs `--select` (one run) or `--all` (each run
    its own case); `--all` is all-or-nothing: every run is checked before any is planned.
    """
    incident = read(options)
    many = len(incident.runs) > 1
    planned = tuple(
        _planned(corpus, run, options, (incident, redactor), many) for run in incident.runs
    )
    refuse_twins(planned, incident.path)
    refuse_incomplete(planned, options)
    if not options.minimize:
        return planned
    # imported here: --minimize replays the case, and the replay engine it pulls in is a
    # third of a second of every other `corpus add`'s start
    from corpus_tool.author.minimized import minimized

    return minimized(corpus, planned, options)


def _planned(
    corpus: Corpus,
    run: Imported,
    options: AddOptions,
    source: tuple[Incident, redact.Redactor],
    many: bool,
) -> Planned:
    """One run through the stages, from placing it to drafting its expectations."""
    incident, redactor = source
    cut = sliced(placed(corpus, run, options, many), options.start, options.end)
    found = checked(redacted(cut, redactor), options.allow_incomplete)
    return drafted(assembled(found, incident, redactor, options), options.tier)


def read(options: AddOptions) -> Incident:
    """The incident file read, its format recognised (or --format), the runs asked for."""
    path = options.incident
    raw = ingest.read_incident(path)
    data, importer = ingest.parse(raw, path, options.source_format)
    runs = chosen(ingest.load(importer, data, path), options.select, options.all_runs, path)
    if options.tools_log is not None:
        slicing = options.start is not None or options.end is not None
        runs = [paired(runs, options.tools_log, slicing)]
    return Incident(path, hashlib.sha256(raw).hexdigest(), tuple(runs))


def placed(corpus: Corpus, run: Imported, options: AddOptions, many: bool) -> Placed:
    """The case `run` becomes: --id, else derived from the run (with --all, --id a prefix)."""
    if many:
        prefix = f"{options.case_id}-" if options.case_id else ""
        case_id = check_case_id(derive_case_id(run, options.incident, prefix))
    else:
        case_id = check_case_id(options.case_id or derive_case_id(run, options.incident))
    target = corpus.case_dir(case_id)
    try:  # one look: another `add --force` of this case may be swapping it in right now
        mode: int | None = target.stat().st_mode
    except OSError:  # none there (or none that can be looked at: the write says why)
        mode = None
    if mode is not None and not stat.S_ISDIR(mode):
        raise UsageError(f"{target} exists and is not a case directory; move it aside")
    if mode is not None and not options.force:
        raise UsageError(
            f"case {case_id!r} exists at {target}; pass --force to re-add it, or --id NEW"
        )
    return Placed(run, case_id, target)


def sliced(where: Placed, start: int | None, end: int | None) -> Sliced:
    """The events whose seq lies in [start, end]."""
    return Sliced(where, slice_body(where.run.body, start, end))


def redacted(cut: Sliced, redactor: redact.Redactor) -> Redacted:
    """The body with every detected value pseudonymised (but those the allow-list names) and
    the `redaction` record added."""
    clean, replaced = redactor(cut.body)
    record = {"policy": redact.POLICY, "key_id": redactor.key.key_id, "replaced": replaced}
    return Redacted(cut.placed, {**clean, "redaction": record})


def checked(clean: Redacted, allow_incomplete: bool) -> Checked:
    """What the recording lacks; with --allow-incomplete, the body marked where it lacks it."""
    found = [p.message for p in completeness.problems(clean.body)]
    body = completeness.mark_missing(clean.body) if found and allow_incomplete else clean.body
    return Checked(clean.placed, body, found)


def assembled(
    found: Checked, incident: Incident, redactor: redact.Redactor, options: AddOptions
) -> Assembled:
    """The trace.yaml document. Trace and session ids are redacted too (an id can embed a phone
    number or an email). An incomplete run is refused for that first, so only a complete run
    (or one let in by --allow-incomplete) meets the schema check."""
    where, cut = found.placed, (options.start, options.end)
    doc = assemble(where.case_id, where.run, found.body, incident.sha256, cut)
    clean, replaced = redactor(doc["source"])
    record = {**doc["redaction"], "replaced": doc["redaction"]["replaced"] + replaced}
    doc = {**doc, "source": clean, "redaction": record}
    if not found.incomplete or options.allow_incomplete:
        _check_schema(doc, incident.path)
        doc = Trace.from_doc(doc).to_doc()  # the model's key order: a re-read changes no byte
    return Assembled(found, doc)


def drafted(case: Assembled, tier: str) -> Planned:
    """The planned case: expected.yaml drafted from the (marked) body; an existing case's
    reviewed expected.yaml (only there with --force) is kept when written."""
    found, where = case.checked, case.checked.placed
    expected = draft(where.case_id, found.body, tier, found.incomplete)
    keeps = (where.target / "expected.yaml").is_file()
    return Planned(
        where.case_id,
        where.target,
        case.doc,
        expected,
        found.incomplete,
        where.run.label,
        hint=where.run.hint,
        keeps_expected=keeps,
    )


def refuse_twins(planned: Sequence[Planned], path: Path) -> None:
    """Two runs of one file must not land in one case directory."""
    seen: dict[str, str | None] = {}
    for case in planned:
        if case.case_id in seen:
            raise InputError(
                f"runs {seen[case.case_id]} and {case.label} would both become case "
                f"{case.case_id!r}; add them one by one with --select and --id",
                path,
            )
        seen[case.case_id] = case.label


def refuse_incomplete(planned: Sequence[Planned], options: AddOptions) -> None:
    """An incomplete run is refused (naming every problem) unless --allow-incomplete."""
    bad = [p for p in planned if p.incomplete]
    if not bad or options.allow_incomplete:
        return
    if len(planned) == 1:
        raise IncompleteError(options.incident, bad[0].incomplete, bad[0].hint)
    problems = [f"run {p.label or p.case_id}: {p.incomplete[0]}" for p in bad]
    raise IncompleteError(options.incident, problems)


def _check_schema(doc: dict[str, Any], incident: Path) -> None:
    """An incident whose values do not fit the trace model is refused with the first misfit."""
    problems = schema.errors("trace", doc, plain=schema.is_plain(doc))
    if problems:
        first = problems[0]
        raise InputError(
            f"cannot be stored: {schema.json_path(first.absolute_path)}: {first.message}", incident
        )
