"""Grading from documents: `expect`, events and terminal in their YAML form, checked once.

The graders read the trace model; this is the door for callers holding file-form data (the
`grade` API, tests, tools that read trace.yaml themselves).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.io import schema
from corpus_tool.model import check_guide
from corpus_tool.model.events import Event, event_from_doc
from corpus_tool.model.expected import Expect
from corpus_tool.model.trace import Terminal, Trajectory


def expect_from_doc(expect: Mapping[str, Any]) -> Expect:
    """An `expect` mapping as the model; an unknown key or a wrong shape is an InputError
    naming the key and showing how it is written."""
    unknown = sorted(set(expect) - set(Expect.KEYS))
    if unknown:
        raise InputError(
            f"expect has unknown key(s) {', '.join(unknown)}; known: {', '.join(Expect.KEYS)} "
            "(`corpus explain` shows each check)"
        )
    problems = schema.part_errors("expected", "expect", dict(expect))
    if problems:
        first = problems[0]
        where = tuple(first.absolute_path)
        raise InputError(
            f"expect{schema.json_path(where)[1:]}: {first.message}; {check_guide.hint(where)}"
        )
    return Expect.from_doc(expect)


def trajectory_from_docs(
    events: Sequence[Mapping[str, Any]], terminal: Mapping[str, Any]
) -> Trajectory:
    """Events and terminal in trace.yaml form as a Trajectory.

    Tolerant the way hand-made data needs: an event without `seq` takes its 1-based
    position, an error written `"Type: message"` is parsed.
    """
    built: list[Event] = []
    for index, doc in enumerate(events):
        full = {"seq": index + 1, **doc}
        try:
            built.append(event_from_doc(full))
        except (KeyError, TypeError, ValueError) as err:
            raise InputError(
                f"event {index + 1} ({doc.get('type')!r}) lacks or mistypes {err}; "
                "see trace.schema.json (shipped in the corpus_tool/schemas/ of your install)"
            ) from None
    status = terminal.get("status")
    return Trajectory(tuple(built), Terminal(str(status or ""), terminal.get("output")))
