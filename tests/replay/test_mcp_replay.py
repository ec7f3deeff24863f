"""An agent whose tools are an MCP server, replayed with the server replaced (issue 25).

The agent is written with the real `mcp` Python client and imports nothing of corpus-tool: it
starts the server named in CORPUS_MCP_ORDERS (stdio), or connects to its URL (streamable HTTP),
as it would start the real one. Each case is a native incident added with `corpus add` and
replayed in a real worker with `corpus replay`.
"""

from __future__ import annotations

import copy
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Cli

pytest.importorskip("mcp", reason="the real MCP client is the test extra's `mcp`")

AGENT = textwrap.dedent(
    """
    import asyncio, json, os
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    def run(case_input, rt):
        reply = rt.model([{"role": "user", "content": case_input["user_message"]}], model="m1")
        context = case_input.get("context", {})
        calls = [(c.name, {**c.arguments, **context.get("override", {})}) for c in reply.tool_calls]
        return asyncio.run(tools(calls, context.get("extra")))

    async def tools(calls, extra):
        address = os.environ["CORPUS_MCP_ORDERS"]
        if address.startswith("http"):
            from mcp.client.streamable_http import streamable_http_client
            opened = streamable_http_client(address)
        else:
            command = json.loads(address)
            opened = stdio_client(StdioServerParameters(command=command[0], args=command[1:]))
        async with opened as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                listed = sorted(t.name for t in (await session.list_tools()).tools)
                seen = []
                for name, arguments in calls + ([extra] if extra else []):
                    result = await session.call_tool(name, arguments)
                    text = " ".join(c.text for c in result.content)
                    seen.append(f"{name} error={result.is_error}: {text}")
        return {"status": "succeeded", "output": f"tools {listed}; " + "; ".join(seen)}
    """
)
LOOKUP = {"id": "O-1001", "state": "shipped"}
OUTPUT = (
    "tools ['lookup', 'refund']; "
    f"lookup error=False: {json.dumps(LOOKUP)}; "
    "refund error=True: refunds need a human"
)
INCIDENT: dict[str, Any] = {
    "schemaVersion": "1.0",
    "traceId": "t-mcp-1",
    "startedAt": "2025-06-01T10:00:00Z",
    "agent": {"name": "orders-agent", "version": "1.0"},
    "input": {"userMessage": "where is O-1001?"},
    "mcpServers": {
        "orders": {
            "tools": [
                {
                    "name": "lookup",
                    "description": "Look up an order",
                    "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
                },
                {"name": "refund", "inputSchema": {"type": "object"}},
            ]
        }
    },
    "events": [
        {
            "seq": 1,
            "type": "llm_request",
            "model": "m1",
            "messages": [{"role": "user", "content": "where is O-1001?"}],
            "response": {
                "content": None,
                "toolCalls": [
                    {"id": "c1", "name": "lookup", "arguments": {"id": "O-1001"}},
                    {"id": "c2", "name": "refund", "arguments": {"id": "O-1001"}},
                ],
            },
        },
        {
            "seq": 2,
            "type": "tool_call",
            "tool": "lookup",
            "server": "orders",
            "callId": "c1",
            "input": {"id": "O-1001"},
            "result": LOOKUP,
        },
        {
            "seq": 3,
            "type": "tool_call",
            "tool": "refund",
            "server": "orders",
            "callId": "c2",
            "input": {"id": "O-1001"},
            "error": {"type": "PermissionDenied", "message": "refunds need a human"},
        },
        {"seq": 4, "type": "final", "status": "succeeded", "output": OUTPUT},
    ],
}


def mcp_corpus(root: Path, cli: Cli, transport: str, incident: dict[str, Any]) -> Path:
    assert cli("init", root).code == 0
    config = root / "corpus.yaml"
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["agent"] = {"entrypoint": "mcp_agent:run"}
    data.setdefault("replay", {})["mcp"] = {"orders": transport}
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    (root / "mcp_agent.py").write_text(AGENT, encoding="utf-8")
    path = root.parent / "incident.json"
    path.write_text(json.dumps(incident), encoding="utf-8")
    code, out, err = cli("-C", root, "add", path, "--id", "mcp-case")
    assert code == 0, out + err
    return root


def replayed(cli: Cli, root: Path) -> tuple[int, dict[str, Any]]:
    code, out, err = cli("-C", root, "replay", "mcp-case", "--format", "json")
    assert code in (0, 1), out + err
    return code, json.loads(out)["cases"][0]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_mcp_agent_replays_with_the_server_replaced(
    tmp_path: Path, cli: Cli, transport: str
) -> None:
    root = mcp_corpus(tmp_path / "corpus", cli, transport, INCIDENT)
    code, case = replayed(cli, root)
    assert case["divergence"] is None, json.dumps(case)[:3000]
    assert (case["verdict"], code) == ("passed", 0)


RT_AGENT = textwrap.dedent(
    """
    from corpus_tool import ToolError

    def run(case_input, rt):
        reply = rt.model([{"role": "user", "content": case_input["user_message"]}], model="m1")
        context = case_input.get("context", {})
        extra = context.get("extra")
        calls = [(c.name, {**c.arguments, **context.get("override", {})}) for c in reply.tool_calls]
        calls += [extra] if extra else []
        seen = []
        for name, arguments in calls:
            try:
                seen.append(f"{name}: {rt.tool(name, arguments)}")
            except ToolError as err:
                seen.append(f"{name} error: {err.message}")
        return {"status": "succeeded", "output": "; ".join(seen)}
    """
)


def test_a_recorded_is_error_reaches_the_mcp_client_as_is_error(tmp_path: Path, cli: Cli) -> None:
    root = mcp_corpus(tmp_path / "corpus", cli, "stdio", INCIDENT)
    _, case = replayed(cli, root)
    trajectory = case["trajectory"]
    assert trajectory["terminal"] == {"status": "succeeded", "output": OUTPUT}
    assert "refund error=True: refunds need a human" in OUTPUT  # result.is_error, as mcp has it
    refund = [e for e in trajectory["events"] if e.get("tool") == "refund"]
    assert refund[0]["error"] == {"type": "PermissionDenied", "message": "refunds need a human"}


def _changed_argument() -> dict[str, Any]:
    incident = copy.deepcopy(INCIDENT)
    incident["input"]["context"] = {"override": {"id": "O-9"}}  # the agent changes the id
    return incident


def _extra_call() -> dict[str, Any]:
    incident = copy.deepcopy(INCIDENT)
    incident["input"]["context"] = {"extra": ["lookup", {"id": "O-7"}]}
    return incident


@pytest.mark.parametrize(
    ("mutation", "kind"), [(_changed_argument, "ToolArguments"), (_extra_call, "ToolCallCount")]
)
def test_a_divergence_through_mcp_is_the_one_the_runtime_gives(
    tmp_path: Path, cli: Cli, mutation: Any, kind: str
) -> None:
    outcomes = []
    for name, agent in (("mcp", None), ("runtime", RT_AGENT)):
        root = mcp_corpus(tmp_path / name, cli, "stdio", mutation())
        if agent is not None:  # the same case, the agent calling rt.tool itself
            (root / "mcp_agent.py").write_text(agent, encoding="utf-8")
        code, case = replayed(cli, root)
        found = case["divergence"]
        outcomes.append(
            (code, case["verdict"], found["kind"], found["step"], case["trajectory"]["terminal"])
        )
    assert outcomes[0][2] == kind
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][:2] == (1, "failed")


def test_the_recorded_tool_list_and_servers_are_kept_in_the_case(tmp_path: Path, cli: Cli) -> None:
    from corpus_tool.model.mcp import mcp_servers, server_of
    from corpus_tool.model.trace import Trace

    root = mcp_corpus(tmp_path / "corpus", cli, "stdio", INCIDENT)
    doc = yaml.safe_load((root / "cases/mcp-case/trace.yaml").read_text(encoding="utf-8"))
    trace = Trace.from_doc(doc)
    servers = mcp_servers(trace)
    assert list(servers) == ["orders"]
    assert [dict(t) for t in servers["orders"].tools] == INCIDENT["mcpServers"]["orders"]["tools"]
    assert [server_of(c) for c in trace.tool_calls] == ["orders", "orders"]


def test_a_malformed_mcp_servers_list_is_refused_naming_it(tmp_path: Path, cli: Cli) -> None:
    assert cli("init", tmp_path / "corpus").code == 0
    incident = copy.deepcopy(INCIDENT)
    incident["mcpServers"] = {"orders": {"tools": "lookup"}}
    path = tmp_path / "incident.json"
    path.write_text(json.dumps(incident), encoding="utf-8")
    code, _, err = cli("-C", tmp_path / "corpus", "add", path, "--id", "bad")
    assert code == 2
    assert "mcpServers.orders must be an object of servers" in err
    assert len(err.strip().splitlines()) == 1
