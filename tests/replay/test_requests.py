"""Strict request matching compares what both sides know; the rest becomes notes."""

from __future__ import annotations

from typing import Any

import pytest

from corpus_tool.model.events import ModelRequest
from corpus_tool.replay.matching import ignored_fields
from corpus_tool.replay.requests import compare

SYSTEM = {"role": "system", "content": "You are the desk."}
TOOLS = ({"name": "lookup"},)


def request(**fields: Any) -> ModelRequest:
    return ModelRequest(
        (SYSTEM,), fields.get("tools"), fields.get("temperature"), fields.get("params")
    )


@pytest.mark.parametrize(
    ("recorded", "sent", "differs", "one_sided"),
    [
        pytest.param(request(temperature=0.0), request(), [], [("temperature", "recording")],
                     id="default-logged-by-the-recorder"),
        pytest.param(request(), request(tools=TOOLS), [], [("tools", "agent")],
                     id="tools-the-export-left-out"),
        pytest.param(request(tools=TOOLS), request(), ["$.request.tools"], [],
                     id="recorded-tools-the-agent-no-longer-offers"),
        pytest.param(request(tools=TOOLS), request(tools=({"name": "other"},)),
                     ["$.request.tools[0].name"], [], id="other-tools"),
        pytest.param(request(temperature=0.0), request(temperature=0.7),
                     ["$.request.temperature"], [], id="both-carry-it-so-it-counts"),
        pytest.param(request(params={"top_p": 1, "max_tokens": 50}),
                     request(params={"max_tokens": 80, "seed": 3}),
                     ["$.request.params.max_tokens"],
                     [("params.seed", "agent"), ("params.top_p", "recording")],
                     id="params-field-by-field"),
        pytest.param(request(params={"request_id": "r1"}), request(), [], [],
                     id="ignored-fields-are-neither-diff-nor-note"),
    ],
)  # fmt: skip
def test_shared_fields_compare(
    recorded: ModelRequest, sent: ModelRequest, differs: list[str], one_sided: list[Any]
) -> None:
    found = compare(recorded, sent, ignored_fields(None))
    assert [d.path for d in found.diff] == differs
    assert sorted((o.path, o.carried_by) for o in found.one_sided) == one_sided


def test_request_fields_all_counts_one_sided_fields() -> None:
    found = compare(request(temperature=0.0), request(tools=TOOLS), ignored_fields(None), "all")
    assert [d.path for d in found.diff] == ["$.request.temperature", "$.request.tools"]
    assert found.one_sided == ()
