"""The MCP servers a trace names: a tool call's `server` and the top-level `mcpServers` lists.

The native format holds them as `server: NAME` on a `tool_call` event and `mcpServers: {NAME:
{tools: [...]}}` at the top (the shape MCP host configurations use); a trace keeps both in
`extra` (the event's, the trace's), which is what this module reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from corpus_tool.model.events import ToolCallEvent
from corpus_tool.model.trace import Trace

MCP_SERVERS = "mcpServers"
"""The key of the servers' tool lists in a native incident and in a trace's `extra`."""
SERVER = "server"
"""The key naming a tool call's MCP server, on the native event and in its `extra`."""


@dataclass(frozen=True)
class McpServer:
    """One recorded MCP server: its name and the tool definitions `tools/list` answered."""

    name: str
    tools: tuple[Mapping[str, Any], ...]


def server_of(event: ToolCallEvent) -> str | None:
    """The MCP server a recorded tool call went to, when the recording names one."""
    name = (event.extra or {}).get(SERVER)
    return name if isinstance(name, str) else None


def mcp_servers(trace: Trace) -> dict[str, McpServer]:
    """Each server the trace names, with its recorded tool list; a server named only on tool
    calls lists those tools by name (with an open input schema)."""
    listed = (trace.extra or {}).get(MCP_SERVERS)
    servers: dict[str, list[Mapping[str, Any]]] = {}
    if isinstance(listed, Mapping):
        for name, entry in listed.items():
            tools = entry.get("tools") if isinstance(entry, Mapping) else None
            servers[str(name)] = [t for t in tools or () if isinstance(t, Mapping)]
    declared = set(servers)
    for event in trace.tool_calls:
        name = server_of(event)
        if name is None or name in declared:
            continue
        known = servers.setdefault(name, [])
        if all(t.get("name") != event.tool for t in known):
            known.append({"name": event.tool, "inputSchema": {"type": "object"}})
    return {name: McpServer(name, tuple(tools)) for name, tools in servers.items()}
