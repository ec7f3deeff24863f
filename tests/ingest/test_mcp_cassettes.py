"""MCP record/replay cassettes are unwrapped into the MCP importer, with their recorded times.

The samples are real cassettes (shared/samples/mcp_recordings, see its SOURCES.md): agent-vcr's
`{session: {interactions: [{timestamp, request, response, latency_ms}]}}` and mcp-cassette's
`{recorded_at, messages: [{t_offset_ms, payload}]}`. What each holds is read from the JSON here.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Cli


def _add(corpus: Path, cli: Cli, source: Path, case: str) -> dict[str, Any]:
    result = cli("-C", corpus, "add", source, "--id", case, "--allow-incomplete")
    assert result.code == 0, result.err
    trace = yaml.safe_load((corpus / "cases" / case / "trace.yaml").read_text(encoding="utf-8"))
    assert trace["source"]["format"] == "mcp"
    return trace


def _tools(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in trace["events"] if e["type"] == "tool_call"]


def test_mcp_vcr_cassette_interactions_are_the_tool_calls(
    samples: Path, corpus_dir: Path, cli: Cli
) -> None:
    source = samples / "mcp_recordings/agent-vcr_calculator-errors.vcr"
    doc = json.loads(source.read_text(encoding="utf-8"))
    recorded = [i for i in doc["session"]["interactions"] if i["request"]["method"] == "tools/call"]
    trace = _add(corpus_dir, cli, source, "vcr")
    tools = _tools(trace)
    assert [(t["tool"], t["arguments"]) for t in tools] == [
        (i["request"]["params"]["name"], i["request"]["params"]["arguments"]) for i in recorded
    ]
    assert [t["timestamp"] for t in tools] == [i["timestamp"] for i in recorded]
    assert [t["duration_ms"] for t in tools] == [i["latency_ms"] for i in recorded]
    for tool, item in zip(tools, recorded, strict=True):
        failure = item["response"].get("error")
        if failure is not None:
            assert tool["error"]["message"] == failure["message"]
            assert tool["extra"]["code"] == failure["code"]
        else:
            assert tool["result"] == item["response"]["result"]["content"][0]["text"]
    assert trace["recorded"]["started_at"] == doc["metadata"]["recorded_at"]
    client = doc["session"]["initialize_request"]["params"]["clientInfo"]
    assert trace["recorded"]["agent"]["name"] == client["name"]


@pytest.mark.parametrize(
    "name", ["mcp-cassette_http_echo_and_add.mcp.json", "mcp-cassette_sampling.mcp.json"]
)
def test_mcp_message_cassette_keeps_the_recorded_time(
    samples: Path, corpus_dir: Path, cli: Cli, name: str
) -> None:
    source = samples / "mcp_recordings" / name
    doc = json.loads(source.read_text(encoding="utf-8"))
    start = datetime.fromisoformat(doc["recorded_at"].replace("Z", "+00:00"))
    asked = [
        m for m in doc["messages"]
        if m["sender"] == "client" and m["payload"].get("method") == "tools/call"
    ]  # fmt: skip
    trace = _add(corpus_dir, cli, source, "cassette")
    tools = _tools(trace)
    assert [(t["tool"], t["arguments"]) for t in tools] == [
        (m["payload"]["params"]["name"], m["payload"]["params"]["arguments"]) for m in asked
    ]
    for tool, message in zip(tools, asked, strict=True):
        when = start + timedelta(milliseconds=message["t_offset_ms"])
        assert datetime.fromisoformat(tool["timestamp"].replace("Z", "+00:00")) == when
        answer = next(
            m["payload"] for m in doc["messages"]
            if m["sender"] == "server" and m["payload"].get("id") == message["msg_id"]
            and "method" not in m["payload"]
        )  # fmt: skip
        assert tool["result"] == answer["result"]["content"][0]["text"]


def test_mcp_bare_interactions_cassette_is_read(
    samples: Path, corpus_dir: Path, cli: Cli, tmp_path: Path
) -> None:
    doc = json.loads((samples / "mcp_recordings/agent-vcr_calculator-errors.vcr").read_text())
    interactions = doc["session"]["interactions"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"interactions": interactions}), encoding="utf-8")
    trace = _add(corpus_dir, cli, bare, "bare")
    calls = [i for i in interactions if i["request"]["method"] == "tools/call"]
    assert [t["tool"] for t in _tools(trace)] == [i["request"]["params"]["name"] for i in calls]
    assert trace["recorded"]["started_at"] == interactions[0]["timestamp"]
