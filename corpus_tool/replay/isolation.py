"""Cutting a worker off from the network and the corpus, where the kernel lets us.

On Linux with unprivileged user namespaces, a worker moves itself (before it imports any agent
code, while it is still single-threaded) into new user, network and mount namespaces: the
network namespace has no interface but a loopback that is down, so no socket of the worker or of
any process it starts can connect anywhere; in the mount namespace the corpus's repository is
bound read-only. Elsewhere (macOS, a kernel or container that forbids user namespaces) nothing
changes here and `fence` refuses subprocesses and ctypes instead; `Isolation.note` says why.
"""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass
from pathlib import Path

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
# statvfs flags -> mount flags; a remount inside a user namespace must keep the locked ones
_KEPT = (
    (getattr(os, "ST_NOSUID", 2), MS_NOSUID),
    (getattr(os, "ST_NODEV", 4), MS_NODEV),
    (getattr(os, "ST_NOEXEC", 8), MS_NOEXEC),
    (getattr(os, "ST_NOATIME", 1024), MS_NOATIME),
    (getattr(os, "ST_NODIRATIME", 2048), MS_NODIRATIME),
    (getattr(os, "ST_RELATIME", 4096), MS_RELATIME),
)


@dataclass(frozen=True)
class Isolation:
    """What the kernel gave a worker: no network, a read-only corpus, or neither (and why)."""

    network: bool
    readonly: bool
    note: str = ""

    def describe(self) -> str:
        """One line for people: what holds in this worker."""
        if not self.network:
            return f"no network namespace ({self.note}); audit hook only"
        ro = "corpus read-only" if self.readonly else f"corpus writable ({self.note})"
        return f"network namespace without interfaces, {ro}"


NONE = Isolation(False, False, "not Linux")


def isolate(readonly: Path | None) -> Isolation:
    """Enter new user, network and mount namespaces and bind `readonly` read-only, if possible."""
    if not sys.platform.startswith("linux"):
        return NONE
    uid, gid = os.getuid(), os.getgid()
    problem = _unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS)
    if problem:
        return Isolation(False, False, f"unshare: {problem}")
    try:
        _map_ids(uid, gid)
    except OSError as err:  # the namespace exists; we are nobody in it, which still works
        return Isolation(True, False, f"uid map: {err.strerror}")
    if readonly is None:
        return Isolation(True, False, "nothing to protect")
    problem = _bind_readonly(readonly)
    return Isolation(True, not problem, problem)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _unshare(flags: int) -> str:
    """'' on success, else the reason (os.unshare on 3.12+, libc before)."""
    unshare = getattr(os, "unshare", None)
    try:
        if unshare is not None:
            unshare(flags)
            return ""
        if _libc().unshare(flags) != 0:
            return os.strerror(ctypes.get_errno())
    except (OSError, AttributeError) as err:
        return str(getattr(err, "strerror", None) or err)
    return ""


def _map_ids(uid: int, gid: int) -> None:
    """Keep our own uid and gid inside the namespace (files we create stay ours)."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1")):
        Path(f"/proc/self/{name}").write_text(text, encoding="ascii")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1", encoding="ascii")


def _bind_readonly(path: Path) -> str:
    """'' once `path` is a read-only bind of itself in our mount namespace, else the reason."""
    libc = _libc()
    libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
    target = os.fsencode(path)
    flags = sum(ms for st, ms in _KEPT if os.statvfs(path).f_flag & st)
    steps = (
        (None, b"/", MS_REC | MS_PRIVATE),  # nothing we mount leaks back to the host
        (target, target, MS_BIND | MS_REC),
        (None, target, MS_REMOUNT | MS_BIND | MS_RDONLY | flags),
    )
    for source, where, how in steps:
        if libc.mount(source, where, None, how, None) != 0:
            return f"mount {where!r}: {os.strerror(ctypes.get_errno())}"
    return ""
