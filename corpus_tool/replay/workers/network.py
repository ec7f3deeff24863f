"""A scoped network guard: while a replay runs, opening a network socket fails loudly.

It uses an audit hook (PEP 578) rather than patching `socket`: the hook is installed once and
does nothing unless a guard is active, so no global state changes between cases and nothing
leaks into code that runs outside replay.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

# Audit events that mean "about to talk to another host".
_RESOLVE = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr")
_CONNECT = ("socket.connect", "socket.sendto", "socket.sendmsg")


class NetworkBlocked(BaseException):
    """Raised where replayed code opens a socket. A BaseException, so `except Exception`
    in agent code cannot hide it."""


@dataclass
class Attempts:
    """What the guarded code tried to reach."""

    targets: list[str] = field(default_factory=list)


class _Guard:
    """Process-wide switch read by the audit hook; a lock keeps nested use consistent."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active: list[Attempts] = []
        self.installed = False
        self.allowed: set[str] = set()  # host:port of the provider doubles on the loopback

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active or not event.startswith("socket."):
            return
        target = _target(event, args)
        if target is None or target in self.allowed:
            return
        for attempts in self.active:
            attempts.targets.append(target)
        raise NetworkBlocked(
            f"replay blocked a network access ({event} {target}): a replayed agent must reach "
            "the world only through rt.tool / rt.model"
        )


def _target(event: str, args: tuple[Any, ...]) -> str | None:
    if event in _RESOLVE:
        host = str(args[0]) if args else "?"
        port = args[1] if len(args) > 1 and event == "socket.getaddrinfo" else None
        return f"{host}:{port}" if port not in (None, "", 0) else host
    if event in _CONNECT:
        address = args[-1] if args else None
        if isinstance(address, (str, bytes)):  # AF_UNIX: a local file, not the network
            return None
        return ":".join(str(part) for part in address) if isinstance(address, tuple) else "?"
    return None


_GUARD = _Guard()


@contextmanager
def no_network() -> Iterator[Attempts]:
    """Block network sockets inside the block; yields the attempts made."""
    attempts = Attempts()
    with _GUARD.lock:
        if not _GUARD.installed:
            sys.addaudithook(_GUARD.hook)
            _GUARD.installed = True
        _GUARD.active.append(attempts)
    try:
        yield attempts
    finally:
        with _GUARD.lock:
            _GUARD.active.remove(attempts)


@contextmanager
def allowing(*targets: str) -> Iterator[None]:
    """Let the guarded code reach these `host:port`s (the provider doubles a worker serves on
    its own loopback) inside the block; every other address stays blocked."""
    with _GUARD.lock:
        added = [t for t in targets if t not in _GUARD.allowed]
        _GUARD.allowed.update(added)
    try:
        yield
    finally:
        with _GUARD.lock:
            _GUARD.allowed.difference_update(added)
