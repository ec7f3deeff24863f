"""Grading from documents: `expect`, events and terminal in their YAML form, checked once.

The graders read the trace model; this is the door for callers holding file-form data (the
`grade` API, tests, tools that read trace.yaml themselves).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.model.events import Event, event_from_doc
from corpus_tool.model.expected import Expect
from corpus_tool.model.trace import Terminal, Trajectory


def expect_from_doc(expect: Mapping[str, Any]) -> Expect:
    """An `expect` mapping as the model; an unknown key or a wrong shape is an InputError."""
    unknown = sorted(set(expect) - set(Expect.KEYS))
    if unknown:
        raise InputError(
            f"expect has unknown key(s) {', '.join(unknown)}; known: {', '.join(Expect.KEYS)}"
        )
    try:
        return Expect.from_doc(expect)
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise InputError(
            f"expect has a value of the wrong shape ({type(err).__name__}: {err}); "
            "see schemas/expected.schema.json"
        ) from None


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
                "see schemas/trace.schema.json"
            ) from None
    status = terminal.get("status")
    return Trajectory(tuple(built), Terminal(str(status or ""), terminal.get("output")))
