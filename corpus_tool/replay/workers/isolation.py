"""Cutting a worker off from the network, the corpus and the host, where the kernel lets us.

On Linux with unprivileged user namespaces, a worker moves itself (before it imports any agent
code, while it is still single-threaded) into new user, network, mount and PID namespaces.
These are the steps bubblewrap takes, done here (bubblewrap is neither used nor required):

1. the network namespace has no interface but its own loopback (brought up for the provider
   doubles the worker serves there, `replay/doubles`), so no socket of the worker or of any
   process it starts can connect anywhere but to the worker's own processes;
2. in the mount namespace the corpus's repository and its git directories (a linked
   worktree's common dir too) are bound read-only, and the redaction key file is covered by
   /dev/null;
3. with a PID namespace (`pidns.py`) the worker runs under an init of its own, which mounts a
   fresh /proc (other processes are not in it) and ends every process the agent left;
4. then a second, nested user and mount namespace: the kernel locks every mount inherited from
   the first (it can be neither unmounted nor remounted writable), and `lockdown` empties the
   capability sets, sets no_new_privs and installs the seccomp filter.

Elsewhere (macOS, a kernel or container that forbids user namespaces) nothing changes here and
`fence` refuses subprocesses and ctypes instead; `Isolation.note` says why.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from corpus_tool.replay.workers import lockdown, pidns

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
CLONE_NEWPID = 0x20000000
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
class Protection:
    """What to protect, and what the worker's relay needs if the worker gets a PID namespace."""

    readonly: tuple[Path, ...]
    hidden: tuple[Path, ...]
    scratch: Path  # the relay removes it if the grading process is killed
    parent: int  # the grading process
    private: tuple[int, ...]  # the worker's pipes: only the worker may hold them
    seccomp: bool = True  # False: lock without the filter (tests of the path other machines take)


@dataclass(frozen=True)
class Isolation:
    """What the kernel gave a worker: no network, a read-only corpus, or neither (and why)."""

    network: bool
    readonly: bool
    note: str = ""
    pid: bool = False  # own PID namespace: its processes end with it; the relay watches
    locked: str = ""  # what locks the mounts ('' none): nested namespace, no caps, seccomp
    notes: int | None = None  # where the init writes the refused calls it answered
    proc: bool = False  # the namespace's own /proc: processes left behind can be found

    def describe(self) -> str:
        """One line for people: what holds in this worker."""
        if not self.network:
            return f"no network namespace ({self.note}); audit hook only"
        ro = "corpus read-only" if self.readonly else f"corpus writable ({self.note})"
        parts = [f"network namespace without interfaces, {ro}"]
        parts += [self.locked] if self.locked else []
        parts += ["own PID namespace"] if self.pid else []
        parts += ["host /proc"] if self.pid and not self.proc else []
        return ", ".join(parts)

    def refused(self) -> list[str]:
        """The refused system calls noted since the last call (any process of the worker)."""
        return lockdown.read_notes(self.notes) if self.notes is not None else []

    def processes(self) -> set[int]:
        """The processes of the namespace but its init and the worker (empty without one)."""
        return set(_others()) if self.proc else set()

    def left_running(self, before: set[int]) -> list[str]:
        """Processes not in `before` still running after a short grace; killed once found."""
        return processes_left(before) if self.proc else []


NONE = Isolation(False, False, "not Linux")


def isolate(plan: Protection) -> Isolation:
    """Enter the namespaces and protect `plan`'s paths, if possible. With a PID namespace this
    forks twice; only the worker returns (the relay and the init stay in `pidns`)."""
    if not sys.platform.startswith("linux"):
        return NONE
    uid, gid = os.getuid(), os.getgid()
    base = CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS
    pid = not _unshare(base | CLONE_NEWPID)
    problem = "" if pid else _unshare(base)
    if problem:
        return Isolation(False, False, f"unshare: {problem}")
    try:
        _map_ids(uid, gid)
        _loopback_up()
        problem = _mounts(plan.readonly, plan.hidden)
    except OSError as err:  # the namespace exists; we are nobody in it, which still works
        problem = f"uid map: {err.strerror}"
    readonly = not problem and bool(plan.readonly)
    problem = problem or ("" if plan.readonly else "nothing to protect")
    if not pid:
        return Isolation(True, readonly, problem, locked=_lock(uid, gid, None, plan.seccomp)[0])
    pipes = pidns.Pipes.make()
    pidns.block_signals()
    init = os.fork()
    if init:
        pidns.relay(init, plan.parent, plan.scratch, pipes, plan.private)
    return _in_namespace(uid, gid, pipes, plan, Isolation(True, readonly, problem))


def _in_namespace(
    uid: int, gid: int, pipes: pidns.Pipes, plan: Protection, got: Isolation
) -> Isolation:
    """In the init: a fresh /proc, the lock, then the worker (the only one that returns)."""
    proc = not _mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    locked, listener = _lock(uid, gid, pipes.notes[1], plan.seccomp)
    pidns.die_with_relay(pipes)
    worker = os.fork()
    if worker:
        if listener is not None:
            listener.worker = worker
        pidns.init(
            worker, (listener.fd, listener.handle) if listener else None, pipes, plan.private
        )
    if listener is not None:
        os.close(listener.fd)
    pipes.keep(pipes.notes[0])
    pidns.unblock_signals()
    notes = pipes.notes[0] if listener is not None else None
    return Isolation(got.network, got.readonly, got.note, True, locked, notes, proc)


def _lock(
    uid: int, gid: int, notes: int | None, seccomp: bool
) -> tuple[str, lockdown.Listener | None]:
    """The nested namespace, no capabilities, no_new_privs, the seccomp filter: what holds,
    and the filter's listener when there is a `notes` pipe for it to write to (the init's)."""
    problem = _unshare(CLONE_NEWUSER | CLONE_NEWNS)
    if problem:
        return "", None
    held = ["mounts locked"]
    try:
        _map_ids(uid, gid)
        lockdown.drop_capabilities()
        held.append("no capabilities")
        lockdown.no_new_privs()
    except OSError:
        return ", ".join(held), None
    arch = lockdown.machine() if seccomp else None
    if arch is None:
        note = lockdown.filter_note() if seccomp else "no seccomp filter (turned off)"
        return ", ".join([*held, note]), None
    try:
        fd = lockdown.install_filter(arch, notify=notes is not None)
    except OSError:
        return ", ".join(held), None
    held.append("seccomp filter")
    if fd is None or notes is None:
        return ", ".join(held), None
    return ", ".join(held), lockdown.Listener(fd, notes, arch)


SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def _loopback_up() -> None:
    """Bring up the new network namespace's loopback (nothing else is in the namespace: it
    reaches only the worker's own listeners, such as the provider doubles)."""
    import fcntl
    import socket
    import struct

    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


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
    with contextlib.suppress(OSError):  # a nested namespace may inherit "deny" already
        Path("/proc/self/setgroups").write_text("deny", encoding="ascii")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1", encoding="ascii")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1", encoding="ascii")


def _mount(source: bytes | None, target: bytes, kind: bytes | None, flags: int) -> str:
    libc = _libc()
    libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
    if libc.mount(source, target, kind, flags, None) != 0:
        return f"mount {target!r}: {os.strerror(ctypes.get_errno())}"
    return ""


def _mounts(readonly: tuple[Path, ...], hidden: tuple[Path, ...]) -> str:
    """'' once every `readonly` path is a read-only bind of itself and every `hidden` file is
    /dev/null, in our mount namespace; else the reason."""
    problem = _mount(None, b"/", None, MS_REC | MS_PRIVATE)  # nothing leaks back to the host
    for path in readonly:
        problem = problem or _bind_readonly(path)
    for path in hidden:
        if path.is_file():
            problem = problem or _mount(b"/dev/null", os.fsencode(path), None, MS_BIND)
    return problem


def _bind_readonly(path: Path) -> str:
    """'' once `path` is a read-only bind of itself, else the reason."""
    target = os.fsencode(path)
    flags = sum(ms for st, ms in _KEPT if os.statvfs(path).f_flag & st)
    return _mount(target, target, None, MS_BIND | MS_REC) or _mount(
        None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags
    )


GRACE_S = 0.2
"""How long processes the case started may take to finish after it returned."""


def processes_left(before: set[int]) -> list[str]:
    """Kill every process of this PID namespace the case left (not in `before`, not pid 1
    nor ourselves); one fault naming them, if any."""
    deadline = time.monotonic() + GRACE_S
    found = {pid: argv for pid, argv in _others().items() if pid not in before}
    while found and time.monotonic() < deadline:
        time.sleep(0.02)
        found = {pid: argv for pid, argv in _others().items() if pid in found}
    for pid in found:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    if not found:
        return []
    names = ", ".join(list(found.values())[:3])
    return [f"it left {len(found)} process(es) running ({names})"]


def _others() -> dict[int, str]:
    me, found = os.getpid(), {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in (1, me) and not _zombie(entry):
            found[int(entry)] = _argv(entry)
    return found


def _zombie(pid: str) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] in "ZX"
    except (OSError, IndexError):
        return True


def _argv(pid: str) -> str:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    except OSError:
        return f"pid {pid}"
    return lockdown.one_line(argv) or f"pid {pid}"
