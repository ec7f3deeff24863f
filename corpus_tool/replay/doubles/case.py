"""The doubles a case's agent reaches without importing corpus-tool: the worker's one hook.

`doubled` wraps the imported agent once per worker (and patches `replay.tools`); `for_case`
binds it to one case. For the case's run the replay MCP servers `replay.mcp` names are up, their
addresses in `CORPUS_MCP_<NAME>` (the stdio command as a JSON list, or the HTTP URL), and the
patched tools answer from the case's Runtime. A divergence a double answered stops the run as
a divergence raised through the Runtime does: when the agent's run ends (returned, or raised
whatever its MCP client made of the error), the divergence is raised in its place.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from corpus_tool.model.config import Config
from corpus_tool.model.mcp import McpServer, mcp_servers
from corpus_tool.model.trace import Trace
from corpus_tool.replay.doubles.mcp import McpReplay
from corpus_tool.replay.doubles.mcp_serve import McpHttpEndpoint, McpUnixEndpoint
from corpus_tool.replay.doubles.tools import PatchedTool, active, patch_tools
from corpus_tool.replay.runtime import Runtime
from corpus_tool.replay.workers.network import allowing

Agent = Callable[[dict[str, Any], Any], Any]
"""The worker's agent callable, `(case_input, rt) -> {status, output}` (`workers.loader`)."""


class _Endpoint(Protocol):
    replay: McpReplay

    def address(self) -> str: ...

    def close(self) -> None: ...


def env_name(server: str) -> str:
    """`CORPUS_MCP_<NAME>`: the server name upper-cased, other than letters and digits `_`."""
    return "CORPUS_MCP_" + re.sub(r"[^A-Z0-9]", "_", server.upper())


class Doubled:
    """The agent with the doubles corpus.yaml asks for."""

    def __init__(
        self, agent: Agent, mcp: Mapping[str, str], tools: tuple[PatchedTool, ...]
    ) -> None:
        self.agent, self.mcp, self.tools = agent, dict(mcp), tools

    def __call__(self, case_input: dict[str, Any], rt: Runtime) -> Any:
        """Without a case (a direct call): the agent as it is."""
        return self.agent(case_input, rt)

    def run(self, trace: Trace, case_input: dict[str, Any], rt: Runtime) -> Any:
        lock = threading.Lock()
        servers = mcp_servers(trace)
        with contextlib.ExitStack() as stack:
            endpoints = [
                stack.enter_context(_serving(name, transport, servers, rt, lock))
                for name, transport in self.mcp.items()
            ]
            stack.enter_context(
                _environment({env_name(e.replay.server.name): e.address() for e in endpoints})
            )
            stack.enter_context(active(rt, lock))
            try:
                returned = self.agent(case_input, rt)
            except BaseException:
                _raise_stop(endpoints)
                raise
            _raise_stop(endpoints)
            return returned


def doubled(agent: Agent, config: Config, config_path: Any = None) -> Agent:
    """The agent with its doubles: the MCP servers and tools corpus.yaml names, and any tool
    function the agent marked with `@replayed_tool`."""
    tools = patch_tools(config.replay.tools, config_path)
    return Doubled(agent, config.replay.mcp, tools)  # also for tools marked @replayed_tool


def for_case(agent: Agent, trace: Trace) -> Agent:
    """The agent as one case runs it (its doubles bound to that case)."""
    if not isinstance(agent, Doubled):
        return agent
    return lambda case_input, rt: agent.run(trace, case_input, rt)


@contextlib.contextmanager
def _serving(
    name: str, transport: str, servers: Mapping[str, McpServer], rt: Runtime, lock: Any
) -> Iterator[_Endpoint]:
    replay = McpReplay(servers.get(name) or McpServer(name, ()), rt.tool, lock)
    if transport != "http":
        unix = McpUnixEndpoint(replay)
        try:
            yield unix
        finally:
            unix.close()
        return
    http = McpHttpEndpoint(replay)
    try:
        with allowing(f"127.0.0.1:{http.port()}"):
            yield http
    finally:
        http.close()


@contextlib.contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _raise_stop(endpoints: list[_Endpoint]) -> None:
    stop = next((e.replay.stop for e in endpoints if e.replay.stop is not None), None)
    if stop is not None:
        raise stop
