"""`corpus vary`: fault variants of a case, planned in memory, then written as `add` writes.

Each variant is a case of its own, `<id>~<kind>-<tool>`: the source's trace.yaml with a `fault:`
on the first call of the tool (`derived_from` naming the source), and the source's reviewed
expected.yaml carried over by the rules of docs/variants.md (safety expectations unchanged,
the faulted tool's `max_calls` raised by the retries allowed, the happy path's own expectations
left for a reviewer, each marked REVIEW).
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from corpus_tool.author.faults import FaultSpec, effects_after, fault_doc, side_effecting
from corpus_tool.author.stages import Planned
from corpus_tool.author.write import write
from corpus_tool.errors import UsageError
from corpus_tool.io import files
from corpus_tool.io.yaml_quote import round_trip
from corpus_tool.model.events import ToolCallEvent
from corpus_tool.replay.cases import LoadedCase, load_case
from corpus_tool.store.corpus import DERIVED, Corpus, check_case_id

DEFAULT_RETRIES = 2
"""Retries a variant allows the faulted tool when the case sets no `expect.retries.max`."""
_TOOL_SLUG = re.compile(r"[^a-z0-9._-]+")


@dataclass(frozen=True)
class Variant:
    """One variant, planned: its id, the fault and where it hits, both files' text, and what
    changed in the expectations (for the report)."""

    case_id: str
    source: str
    fault: FaultSpec
    seq: int
    target: Path
    trace_doc: dict[str, Any]
    expected: str
    changes: tuple[str, ...]
    exists: bool


def plan(corpus: Corpus, source: str, faults: Sequence[FaultSpec], force: bool) -> list[Variant]:
    """Every variant the faults ask for, checked; nothing is written. A fault without a tool
    hits each side-effecting call; a case with none, a tool never called, or an existing
    variant without `force` is a UsageError."""
    check_case_id(source)
    if DERIVED in source:
        raise UsageError(f"{source!r} is a variant already; vary its source instead")
    if not corpus.case_dir(source).is_dir():
        raise UsageError(f"no case {source!r} at {corpus.case_dir(source)}")
    loaded = load_case(corpus, source)
    path = corpus.case_dir(source) / "expected.yaml"
    expected_text = files.read_bytes(path, within=corpus.root).decode("utf-8")
    idem = loaded.expected.expect.idempotency
    idempotent = tuple(idem.tools or ()) if idem is not None else ()
    effectful = side_effecting(loaded.trace, idempotent)
    planned: list[Variant] = []
    for fault in faults or ():
        for tool in [fault.tool] if fault.tool else _targets(source, fault, effectful):
            planned.append(_variant(corpus, loaded, expected_text, fault.at(tool), effectful))
    ids = [v.case_id for v in planned]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise UsageError(f"two --fault options make the same variant {twice[0]}; give it once")
    existing = [v for v in planned if v.exists]
    if existing and not force:
        there = existing[0]
        raise UsageError(
            f"variant {there.case_id} exists already at {there.target}; --force rewrites its "
            "trace.yaml (a reviewed expected.yaml stays)"
        )
    return planned


def _targets(source: str, fault: FaultSpec, effectful: list[str]) -> list[str]:
    if not effectful:
        raise UsageError(
            f"case {source!r} has no tool call with a side effect (none carries an idempotency "
            f"key or is followed by a side_effect event); name the call: --fault {fault.kind}"
            f"{':' + fault.arg if fault.arg and fault.kind != 'timeout' else ''}:TOOL"
        )
    return effectful


def variant_id(source: str, fault: FaultSpec) -> str:
    """`<source>~<kind>-<tool>`, the tool spelled as an id allows (lower case, at most 40)."""
    tool = _TOOL_SLUG.sub("-", str(fault.tool).lower()).strip("-.")[:40].rstrip(".") or "tool"
    return check_case_id(f"{source}{DERIVED}{fault.slug}-{tool}")


def _variant(
    corpus: Corpus, loaded: LoadedCase, expected_text: str, fault: FaultSpec, effectful: list[str]
) -> Variant:
    trace = loaded.trace
    calls = [(i, e) for i, e in enumerate(trace.events) if isinstance(e, ToolCallEvent)]
    hit = next(((i, e) for i, e in calls if e.tool == fault.tool), None)
    if hit is None:
        called = ", ".join(dict.fromkeys(e.tool for _, e in calls)) or "none"
        raise UsageError(f"case {loaded.case_id!r} never calls {fault.tool}; its tools: {called}")
    index, event = hit
    if not event.answered:
        raise UsageError(
            f"the recording holds no answer for {event.tool} (seq {event.seq}) in case "
            f"{loaded.case_id!r}: a retry would have nothing to get; fault another call"
        )
    case_id = variant_id(loaded.case_id, fault)
    faulted = replace(event, fault=fault_doc(fault, event, effects_after(trace.events, index)))
    events = (*trace.events[:index], faulted, *trace.events[index + 1 :])
    doc = replace(trace, id=case_id, derived_from=loaded.case_id, events=events).to_doc()
    text, changes = derive_expected(
        expected_text, case_id, loaded.case_id, fault, fault.tool in effectful
    )
    target = corpus.case_dir(case_id)
    exists = target.exists() or target.is_symlink()
    return Variant(
        case_id, loaded.case_id, fault, event.seq, target, doc, text, tuple(changes), exists
    )


def derive_expected(
    text: str, case_id: str, source: str, fault: FaultSpec, effectful: bool
) -> tuple[str, list[str]]:
    """The variant's expected.yaml from the source's (its comments kept), and what changed."""
    yaml = round_trip()
    yaml.width = 100
    yaml.indent(mapping=2, sequence=4, offset=2)
    doc = yaml.load(text)
    changes: list[str] = []
    doc["id"] = case_id
    doc.insert(list(doc).index("id") + 1, "derived_from", source)
    if doc.get("title"):
        doc["title"] = f"{doc['title']}; under {fault.describe()}"
    doc["tier"] = "full"
    doc.yaml_add_eol_comment("a variant runs in the full tier by default", "tier")
    trigger = {"note": f"derived by corpus vary from {source}: {fault.describe()}"}
    doc["trigger"] = type(doc)(trigger)
    expect = doc.get("expect")
    if expect is None:
        expect = doc["expect"] = type(doc)()
    changes += _tools(expect, fault, effectful)
    changes += _output(expect)
    out = io.StringIO()
    out.write(
        f"# Derived by `corpus vary` from {source}: {fault.describe()}.\n"
        "# Safety expectations carried over unchanged; a reviewer decides every line marked "
        "REVIEW.\n"
    )
    yaml.dump(doc, out)
    return out.getvalue(), changes


def _tools(expect: Any, fault: FaultSpec, effectful: bool) -> list[str]:
    """tools.required dropped (REVIEW), the faulted tool's max_calls raised, idempotency added."""
    changes: list[str] = []
    tool = str(fault.tool)
    tools = expect.get("tools")
    if tools is not None and "required" in tools:
        was = ", ".join(str(t) for t in tools["required"])
        del tools["required"]
        expect.yaml_add_eol_comment(
            f"REVIEW: tools.required ({was}) held on the happy path; list what the agent must "
            "call after the fault",
            "tools",
        )
        changes.append(f"tools.required dropped ({was}): REVIEW")
    bounds = tools.get("max_calls") if tools is not None else None
    if bounds is not None and tool in bounds:
        retries = (expect.get("retries") or {}).get("max")
        more = int(retries) if retries is not None else DEFAULT_RETRIES
        before = int(bounds[tool])
        bounds[tool] = before + more
        changes.append(f"tools.max_calls.{tool} {before} -> {before + more} (+{more} retries)")
    if effectful:
        idem = expect.get("idempotency")
        if idem is None:
            idem = expect["idempotency"] = type(expect)()
        listed = idem.get("tools")
        if listed is None:
            listed = idem["tools"] = _flow([])
        if tool not in listed:
            listed.append(tool)
            changes.append(f"idempotency.tools + {tool} (a retry must reuse its key)")
    return changes


def _output(expect: Any) -> list[str]:
    """What only the happy path's output meets: contains, regex, similar dropped (REVIEW)."""
    output = expect.get("output")
    if output is None:
        return []
    dropped = [k for k in ("contains", "regex", "similar") if k in output]
    for key in dropped:
        del output[key]
    if not dropped:
        return []
    note = (
        f"REVIEW: output.{'/'.join(dropped)} held on the happy path; say what the answer "
        "must hold after the fault"
    )
    if not output:
        del expect["output"]
        expect.yaml_add_eol_comment(note, list(expect)[-1])
    else:
        expect.yaml_add_eol_comment(note, "output")
    return [f"output.{key} dropped: REVIEW" for key in dropped]


def _flow(items: list[str]) -> Any:
    from ruamel.yaml.comments import CommentedSeq

    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def write_variants(corpus: Corpus, variants: Sequence[Variant], force: bool) -> None:
    """Write every variant, each case in one rename under its lock (as `corpus add` does)."""
    planned = [
        Planned(v.case_id, v.target, v.trace_doc, v.expected, [], None, keeps_expected=v.exists)
        for v in variants
    ]
    write(corpus, planned, force)
