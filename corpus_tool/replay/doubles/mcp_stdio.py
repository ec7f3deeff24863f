"""The replay MCP server as a command: `python mcp_stdio.py SOCKET`, what `CORPUS_MCP_<NAME>`
names for a stdio server.

It relays MCP's stdio transport (newline-delimited JSON-RPC on stdin and stdout) to the replay
worker's Unix socket, where the case's recording answers (`mcp_serve.McpUnixEndpoint`). The
standard library only, and no corpus-tool import: it runs as a script wherever the agent starts
it, with whatever environment the MCP client passes.
"""

from __future__ import annotations

import socket
import sys
import threading


def main(argv: list[str]) -> int:
    """Relay until the agent closes stdin or the worker hangs up."""
    if len(argv) != 2:
        sys.stderr.write("usage: mcp_stdio.py SOCKET (the replay worker starts it for you)\n")
        return 2
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(argv[1])
    except OSError as err:
        sys.stderr.write(f"mcp_stdio: cannot reach the replay worker at {argv[1]}: {err}\n")
        return 1
    threading.Thread(target=_upstream, args=(conn,), daemon=True).start()
    with conn.makefile("rb") as replies:
        for line in replies:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
    return 0


def _upstream(conn: socket.socket) -> None:
    """stdin to the worker, line by line; end of input closes our sending half."""
    try:
        for line in sys.stdin.buffer:
            conn.sendall(line)
        conn.shutdown(socket.SHUT_WR)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv))
