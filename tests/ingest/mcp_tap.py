"""A stdio relay between an MCP client and its server that logs every JSON-RPC line.

`python mcp_tap.py LOG -- SERVER_COMMAND...`: what a proxy or a host such as Claude Desktop
writes to its MCP log, one line per message, `<ISO time> [info] [shop] Message from
client|server: <the line as sent>`. The lines are the real wire traffic.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import datetime, timezone
from typing import IO


def _relay(
    source: IO[bytes], sink: IO[bytes], log: IO[str], lock: threading.Lock, who: str
) -> None:
    for line in iter(source.readline, b""):
        stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        with lock:
            log.write(f"{stamp} [info] [shop] Message from {who}: {line.decode().rstrip()}\n")
            log.flush()
        sink.write(line)
        sink.flush()
    sink.close()


def main() -> int:
    log_path, command = sys.argv[1], sys.argv[sys.argv.index("--") + 1 :]
    child = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert child.stdin is not None and child.stdout is not None
    lock = threading.Lock()
    with open(log_path, "a", encoding="utf-8") as log:
        up = threading.Thread(
            target=_relay, args=(sys.stdin.buffer, child.stdin, log, lock, "client")
        )
        up.start()
        _relay(child.stdout, sys.stdout.buffer, log, lock, "server")
        up.join()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
