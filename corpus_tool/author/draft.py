"""Drafting expected.yaml from what an incident shows, with comments for the reviewer."""

from __future__ import annotations

import io
from collections import Counter
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from corpus_tool.io.yaml_quote import round_trip


def trigger(body: dict[str, Any]) -> dict[str, Any]:
    """What made the run an incident: the last error, else a non-success terminal status."""
    for event in reversed(body.get("events") or []):
        error = event.get("error")
        if isinstance(error, dict) and error.get("type"):
            return {"error_type": error["type"], "seq": event["seq"]}
    status = (body.get("terminal") or {}).get("status", "unknown")
    return {"terminal_status": status}


def agent_error_types(body: dict[str, Any]) -> list[str]:
    """Error types raised by the agent itself (`error` events), not by tools.

    Tool errors are facts of the world that replay reproduces, so forbidding them would
    fail every replay; the agent's own crashes are what a fix removes.
    """
    return sorted(
        {
            e["error"]["type"]
            for e in body.get("events") or []
            if e.get("type") == "error" and isinstance(e.get("error"), dict)
        }
    )


def call_counts(body: dict[str, Any]) -> dict[str, int]:
    """How often the run called each tool, by tool name (sorted)."""
    counts = Counter(e["tool"] for e in body.get("events") or [] if e.get("type") == "tool_call")
    return dict(sorted(counts.items()))


def draft(case_id: str, body: dict[str, Any], tier: str, incomplete: list[str]) -> str:
    """expected.yaml text for a new case: the facts filled in, the decisions flagged."""
    doc = CommentedMap()
    doc["schema_version"] = 1
    doc["id"] = case_id
    doc["title"] = _title(body)
    doc.yaml_add_eol_comment("REVIEW: one line saying what must not happen again", "title")
    doc["status"] = "known_unknown" if incomplete else "active"
    if incomplete:
        doc.yaml_add_eol_comment("the recording is incomplete; see `incomplete`", "status")
    doc["tier"] = tier
    doc["owner"] = "unassigned"
    doc.yaml_add_eol_comment("REVIEW: the team that answers for this case", "owner")
    doc["tags"] = CommentedSeq()
    doc["replay"] = CommentedMap(mode="strict")
    doc["trigger"] = CommentedMap(trigger(body))
    doc["trigger"].fa.set_flow_style()  # one line, so one REVIEW covers all of it
    doc.yaml_add_eol_comment("REVIEW: is this what the incident was?", "trigger")
    if incomplete:
        doc["incomplete"] = CommentedSeq(incomplete)
    doc["expect"] = _expect(body)
    doc.yaml_set_comment_before_after_key(
        "expect",
        before="What must hold when the case is replayed. Drafted from the incident:\n"
        "decide each check, delete what does not matter, add what the fix promises.",
    )
    return _dump(doc)


def _title(body: dict[str, Any]) -> str:
    found = trigger(body)
    agent = ((body.get("recorded") or {}).get("agent") or {}).get("name") or "agent"
    if "error_type" in found:
        return f"{agent}: {found['error_type']} at seq {found['seq']}"
    return f"{agent}: run ended {found['terminal_status']}"


def _expect(body: dict[str, Any]) -> CommentedMap:
    expect = CommentedMap()
    forbidden = agent_error_types(body)
    if forbidden:
        expect["errors"] = CommentedMap(forbidden=_flow(forbidden))
        expect["errors"].yaml_add_eol_comment(
            "the agent's own errors in the incident; REVIEW: must none of them happen again?",
            "forbidden",
        )
    counts = call_counts(body)
    if counts:
        expect["tools"] = _tools(counts)
    status = (body.get("terminal") or {}).get("status", "unknown")
    expect["terminal"] = CommentedMap(status=status)
    expect["terminal"].yaml_add_eol_comment(
        f"the incident ended {status}; REVIEW: set the status the fixed agent must reach", "status"
    )
    return expect


def _tools(counts: dict[str, int]) -> CommentedMap:
    """required, allowed and max_calls as the incident shows them: together they catch a
    missing, a new and an extra call, in lenient mode too."""
    tools = CommentedMap()
    tools["required"] = _flow(list(counts))
    tools.yaml_add_eol_comment(
        "the tools the incident called; REVIEW: keep those the fixed agent must call", "required"
    )
    tools["allowed"] = _flow(list(counts))
    tools.yaml_add_eol_comment("the tools the incident used; REVIEW: narrow or widen", "allowed")
    bounds = CommentedMap(counts)
    bounds.fa.set_flow_style()
    tools["max_calls"] = bounds
    tools.yaml_add_eol_comment(
        "as often as the incident called each; REVIEW: the most the fixed agent may call",
        "max_calls",
    )
    return tools


def _flow(items: list[str]) -> CommentedSeq:
    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def _dump(doc: CommentedMap) -> str:
    yaml = round_trip()  # `id: no` written as `id: 'no'`: corpus-tool reads YAML 1.1
    yaml.width = 100
    yaml.indent(mapping=2, sequence=4, offset=2)
    out = io.StringIO()
    out.write(
        "# Expectations: what must hold from now on when this case is replayed.\n"
        "# Drafted by `corpus add`; a reviewer decides every line marked REVIEW.\n"
    )
    yaml.dump(doc, out)
    return out.getvalue()
