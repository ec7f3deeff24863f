"""`corpus add` of a long native incident, streamed: the events read, redacted, checked and
written a batch at a time into the case's staged directory, under its lock.

A whole read of a 300,000-event incident holds the parsed file, the imported body, the
redacted body and the model's document at once (about eleven times the file's size). Here
only a batch of events is alive at a time; what needs the whole run keeps a small summary of
each event (`completeness.summary`: the completeness check, the drafted expectations) and
two entries per call id (their renaming). The bytes written are those of the whole-document
path (author.plan), which the tests compare on generated incidents:

    events, a batch at a time   redacted (one walk per batch), summarised, schema-checked,
                                put in the model's key order, written as YAML to a part file
    the rest of the file        redacted; completeness over the summaries (refused: nothing
                                is left); the source block; the schema check of the rest
    trace.yaml                  head + `events:` + the part file + tail, then expected.yaml

On any refusal the staged directory is removed (staging.build) and no case is written; a kill
leaves a `.tmp` directory that the next write removes. What the streamed path does not take
on goes to the whole-document path (`add_streamed` returns None): JSON it cannot read
incrementally (a syntax error: the whole parse reports it), a file native's sniff does not
recognise, a case id known only after the events, `--allow-incomplete` over an incomplete
run (its events are marked), `--tools-log`, `--minimize`, `--select`, `--all`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from corpus_tool import redact
from corpus_tool.author.assemble import assemble, derive_case_id
from corpus_tool.author.draft import draft
from corpus_tool.author.plan import placed
from corpus_tool.author.stages import AddOptions, Planned
from corpus_tool.errors import IncompleteError, InputError, UsageError
from corpus_tool.ingest.formats.native import NativeRun
from corpus_tool.ingest.imported import Imported
from corpus_tool.io import files, schema
from corpus_tool.io.json_stream import NotStreamed
from corpus_tool.model.events import event_from_doc
from corpus_tool.model.trace import Trace
from corpus_tool.store import recovery, staging
from corpus_tool.store.corpus import Corpus, check_case_id
from corpus_tool.store.faults import NO_STEPS, StepCounter
from corpus_tool.validate import completeness

STREAM_FROM = 16 * 2**20
"""Files smaller than this take the whole-document path (as fast, and the same bytes)."""
BATCH = 1000
"""Events redacted and written together: one redaction walk remembers its strings this long."""
_EVENTS = "events:\n"


class _Whole(Exception):
    """Not the streamed path's: the whole-document path takes the file."""


def streamable(options: AddOptions, least: int | None = None) -> bool:
    """Whether `options` ask for nothing but what the streamed path does, of a file of at
    least `least` bytes (default STREAM_FROM)."""
    if options.source_format not in ("auto", "native") or options.tools_log is not None:
        return False
    if options.minimize or options.select is not None or options.all_runs:
        return False
    least = STREAM_FROM if least is None else least
    try:
        return options.incident.is_file() and options.incident.stat().st_size >= least
    except OSError:
        return False


def add_streamed(
    corpus: Corpus,
    options: AddOptions,
    redactor: redact.Redactor,
    steps: StepCounter = NO_STEPS,
    err: TextIO | None = None,
) -> Planned | None:
    """The case of `options.incident`, written; None when the whole-document path must take
    it (before anything is written). Refusals are those of author.plan, and write nothing."""
    low, high = _bounds(options)
    try:
        with NativeRun(options.incident, sniffed=options.source_format == "auto") as run:
            case_id = _case_id(run.head, options)
            target = _place(corpus, case_id, options)
            for note in recovery.recover(corpus, steps):
                if err is not None:
                    err.write(f"corpus add: {note}\n")
            corpus.check_no_twins([case_id])
            keeps = (target / "expected.yaml").is_file()
            with staging.locked(target, steps), staging.build(target, options.force, steps) as tmp:
                if os.path.lexists(target):
                    staging.copy_tree(target, tmp)
                    steps.done(f"previous {target.name} copied")
                case = _Case(case_id, target, options, redactor)
                case.write(run, (low, high), tmp, steps)
                return case.planned(keeps)
    except (NotStreamed, _Whole):
        return None


def _bounds(options: AddOptions) -> tuple[int, int]:
    start, end = options.start, options.end
    if start is not None and end is not None and start > end:
        raise UsageError(f"--start {start} is after --end {end}")
    return (start if start is not None else -(2**63)), (end if end is not None else 2**63)


def _case_id(head: Mapping[str, Any], options: AddOptions) -> str:
    """The case id, known before the events: --id, or the trace id written before them."""
    if options.case_id is not None:
        return check_case_id(options.case_id)
    if "traceId" not in head:
        raise _Whole("the trace id, if any, comes after the events")
    trace_id = head["traceId"]
    run = Imported("native", {}, None if trace_id is None else str(trace_id))
    return check_case_id(derive_case_id(run, options.incident))


def _place(corpus: Corpus, case_id: str, options: AddOptions) -> Path:
    """The case's directory: free, or taken and --force (author.plan.placed's refusals)."""
    return placed(corpus, Imported("native", {}), replace(options, case_id=case_id), False).target


class _Case:
    """One streamed case on its way into its staged directory."""

    def __init__(self, case_id: str, target: Path, options: AddOptions, redactor: redact.Redactor):
        self.case_id, self.target, self.options, self.redactor = case_id, target, options, redactor
        self.events = _Events(redactor)
        self.doc: dict[str, Any] = {}
        self.expected = ""

    def write(self, run: NativeRun, bounds: tuple[int, int], tmp: Path, steps: StepCounter) -> None:
        # The cycle collector paused: with it running, the summaries kept (a few containers
        # an event) and each batch's copies made it run full collections over and over, a
        # sixth of the add's CPU. A batch's garbage holds no cycles: counting frees it all.
        with files.collector_paused():
            self._write(run, bounds, tmp, steps)

    def _write(
        self, run: NativeRun, bounds: tuple[int, int], tmp: Path, steps: StepCounter
    ) -> None:
        part = tmp / ".events.part"
        with staging.open_new(part) as sink:
            self.events.write(_kept(run.events(), bounds), sink)
        imported = run.run()
        body = self._body(imported, bounds)
        self._check(body, imported)
        self.doc = self._doc(imported, body, run.sha256)
        self._join(tmp / "trace.yaml", part)
        steps.done("trace.yaml written")
        self.expected = draft(self.case_id, body, self.options.tier, [])
        if not os.path.lexists(tmp / "expected.yaml"):
            staging.write_new(tmp / "expected.yaml", self.expected)
            steps.done("expected.yaml drafted")

    def _body(self, imported: Imported, bounds: tuple[int, int]) -> dict[str, Any]:
        """The redacted body, its events the summaries (author.plan's sliced and redacted)."""
        events = self.events
        if events.count == 0 and (self.options.start, self.options.end) != (None, None):
            raise UsageError(
                f"no event has a seq between {self.options.start} and {self.options.end}"
            )
        rest = {k: v for k, v in imported.body.items() if k != "events"}
        terminal = rest["terminal"]
        if "seq" in terminal and not bounds[0] <= terminal["seq"] <= bounds[1]:
            rest["terminal"] = {"status": "unknown", "output": None}
        clean, replaced = self.redactor(rest)
        record = {
            "policy": redact.POLICY,
            "key_id": self.redactor.key.key_id,
            "replaced": events.replaced + replaced,
        }
        return {**clean, "events": events.summaries, "redaction": record}

    def _check(self, body: dict[str, Any], imported: Imported) -> None:
        found = [p.message for p in completeness.problems(body)]
        if found and self.options.allow_incomplete:
            raise _Whole("an incomplete run let in: its events are marked")
        if found:
            raise IncompleteError(self.options.incident, found, imported.hint)

    def _doc(self, imported: Imported, body: dict[str, Any], sha256: str) -> dict[str, Any]:
        """trace.yaml's document without its events, as author.plan.assembled makes it."""
        cut = (self.options.start, self.options.end)
        ends = [{"seq": seq} for seq in self.events.ends]
        doc = assemble(self.case_id, imported, {**body, "events": ends}, sha256, cut)
        clean, replaced = self.redactor(doc["source"])
        record = {**doc["redaction"], "replaced": doc["redaction"]["replaced"] + replaced}
        doc = {**doc, "source": clean, "redaction": record, "events": []}
        self._check_schema(doc)
        return Trace.from_doc(doc).to_doc()

    def _check_schema(self, doc: dict[str, Any]) -> None:
        """The first schema error of the whole document (schema.errors' order), if any."""
        problems = schema.errors("trace", doc, schema.is_plain(doc))
        found = [(tuple(e.absolute_path), e.message) for e in problems]
        found.extend(self.events.schema_errors[:1])
        if found:
            where, message = min(found, key=lambda f: (schema.path_key(f[0]), f[1]))
            raise InputError(
                f"cannot be stored: {schema.json_path(where)}: {message}", self.options.incident
            )

    def _join(self, trace: Path, part: Path) -> None:
        """trace.yaml: the document's keys before `events`, the events, the keys after."""
        keys = list(self.doc)
        at = keys.index("events")
        head = {k: self.doc[k] for k in keys[:at]}
        tail = {k: self.doc[k] for k in keys[at + 1 :]}
        with staging.open_new(trace) as out:
            out.write(files.dump_yaml(head))
            out.write(_EVENTS if self.events.count else "events: []\n")
            out.flush()  # the part's bytes copied as they are, not decoded and encoded again
            with part.open("rb") as events:
                shutil.copyfileobj(events, out.buffer, 1 << 20)
            out.write(files.dump_yaml(tail))
        part.unlink()

    def planned(self, keeps: bool) -> Planned:
        return Planned(
            self.case_id,
            self.target,
            self.doc,
            self.expected,
            [],
            None,
            keeps_expected=keeps,
            event_count=self.events.count,
        )


def _kept(events: Iterable[dict[str, Any]], bounds: tuple[int, int]) -> Iterable[dict[str, Any]]:
    low, high = bounds
    return (e for e in events if low <= e["seq"] <= high)


class _Events:
    """The events of a streamed run, a batch at a time: redacted, summarised, checked against
    the schema, written; what is kept of them (counts, summaries, the first schema error)."""

    def __init__(self, redactor: redact.Redactor):
        self.redactor = redactor
        self.count = self.replaced = 0
        self.summaries: list[dict[str, Any]] = []
        self.schema_errors: list[tuple[tuple[str | int, ...], str]] = []
        self.ends: list[int] = []  # the first and last seq written

    def write(self, events: Iterable[dict[str, Any]], sink: TextIO) -> None:
        batch: list[dict[str, Any]] = []
        for event in events:
            batch.append(event)
            if len(batch) == BATCH:
                self._batch(batch, sink)
                batch = []
        if batch:
            self._batch(batch, sink)

    def _batch(self, batch: list[dict[str, Any]], sink: TextIO) -> None:
        (clean, replaced), plain = self.redactor.told(batch, own=True)
        self.replaced += replaced
        self.summaries.extend(completeness.summary(e) for e in clean)
        self.ends = [self.ends[0] if self.ends else clean[0]["seq"], clean[-1]["seq"]]
        if not self.schema_errors:
            self._check_and_write(clean, plain, sink)
        self.count += len(clean)

    def _check_and_write(self, clean: list[dict[str, Any]], plain: bool, sink: TextIO) -> None:
        errors = schema.items_errors("trace", "events", clean, plain)
        if errors:  # the first, where the whole document has it; nothing more is written
            first = errors[0]
            at, *below = first.absolute_path
            self.schema_errors.append((("events", self.count + at, *below), first.message))
            return
        text = files.dump_yaml({"events": [event_from_doc(e).to_doc() for e in clean]})
        assert text.startswith(_EVENTS)
        sink.write(text[len(_EVENTS) :])
