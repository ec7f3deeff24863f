"""`corpus add --minimize`: the stage that shrinks each planned case before it is written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from corpus_tool.author.draft import draft
from corpus_tool.author.stages import AddOptions, Planned
from corpus_tool.grade import grade_checks
from corpus_tool.io import files
from corpus_tool.minimize.case import Asked, shrink_case
from corpus_tool.minimize.pooled import workers
from corpus_tool.minimize.render import summary as shrink_summary
from corpus_tool.minimize.stale import stale
from corpus_tool.model.expected import Expected
from corpus_tool.model.trace import Trace
from corpus_tool.store.corpus import Corpus


def minimized(
    corpus: Corpus, planned: Sequence[Planned], options: AddOptions
) -> tuple[Planned, ...]:
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
    return tuple(out)


def _without_required(expected: Expected) -> Expected:
    tools = expected.expect.tools
    if tools is None or tools.required is None:
        return expected
    return replace(expected, expect=replace(expected.expect, tools=replace(tools, required=None)))
