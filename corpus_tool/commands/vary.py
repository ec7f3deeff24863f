"""`corpus vary CASE --fault KIND[:TOOL] ...`: derive fault variants of a case (docs/variants.md).

Without --write it reports what it would write; with it, each variant is written as `corpus
add` writes a case (whole, under its lock).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from corpus_tool.author.faults import parse_fault
from corpus_tool.author.vary import Variant, plan, write_variants
from corpus_tool.store.corpus import Corpus


def vary(
    corpus: Corpus,
    case_id: str,
    faults: Sequence[str],
    write: bool,
    force: bool,
    output: str,
    out: TextIO,
) -> int:
    """Plan the variants (every check before anything is written), write them with `write`,
    report them; 0 when done."""
    variants = plan(corpus, case_id, [parse_fault(f) for f in faults or ["timeout"]], force)
    if write:
        write_variants(corpus, variants, force)
    if output == "json":
        doc = {"source": case_id, "written": write, "variants": [_doc(corpus, v) for v in variants]}
        out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        return 0
    for variant in variants:
        _text(corpus, variant, write, out)
    if not write:
        out.write(f"dry run: nothing written; add --write to write {len(variants)} variant(s)\n")
    return 0


def _text(corpus: Corpus, variant: Variant, written: bool, out: TextIO) -> None:
    verb = ("rewrote" if variant.exists else "wrote") if written else "would write"
    where = variant.target.relative_to(corpus.root).as_posix()
    out.write(
        f"{verb} {variant.case_id}  ({variant.fault.describe()}, seq {variant.seq})  {where}\n"
    )
    for change in variant.changes:
        out.write(f"  expect: {change}\n")


def _doc(corpus: Corpus, variant: Variant) -> dict[str, Any]:
    fault = variant.fault
    return {
        "id": variant.case_id,
        "derived_from": variant.source,
        "path": variant.target.relative_to(corpus.root).as_posix(),
        "fault": {
            "kind": fault.kind,
            "tool": fault.tool,
            "argument": fault.arg,
            "seq": variant.seq,
        },
        "description": fault.describe(),
        "exists": variant.exists,
        "expect_changes": list(variant.changes),
    }
