"""The last steps of a worker's sandbox: no capabilities, no new privileges, a seccomp filter.

These are bubblewrap's steps, done here with ctypes (bubblewrap is not used, nor required).
They run after every mount is in place and before any agent code is imported:

- `drop_capabilities`: the bounding, ambient, effective, permitted and inheritable sets are
  emptied, so nothing the worker or its children run can mount, unmount or change a mount;
- `no_new_privs`: execve can never give them back (set-user-ID programs, file capabilities);
- `install_filter`: a seccomp filter refuses the system calls that change mounts or enter
  namespaces (`mount`, `umount2`, `pivot_root`, `unshare`, `setns`, the new mount API, `clone`
  with any CLONE_NEW* flag); `clone3` gets ENOSYS, so the C library falls back to `clone`, whose
  flags the filter can read (Docker does the same). Where the kernel lets us, a refused call is
  not just refused: it waits while a listener (the namespace's init process, `Listener`) notes
  who tried what, then fails with EPERM. The note reaches the worker before the call returns,
  so a case that tried one, itself or in any process it started, is an error naming it.

The filter knows the system call numbers of x86_64 and aarch64; elsewhere none is installed
and `filter_note` says so. A call from another ABI of the same machine (i386 or x32 on x86_64)
gets ENOSYS: the numbers would not be the ones checked.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import struct
from dataclasses import dataclass
from pathlib import Path

PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 24, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
CAP_VERSION_3 = 0x20080522

# seccomp(2), its return actions and the BPF instructions the filter needs
SECCOMP_SET_MODE_FILTER, FLAG_NEW_LISTENER = 1, 1 << 3
RET_ALLOW, RET_USER_NOTIF, RET_ERRNO = 0x7FFF0000, 0x7FC00000, 0x00050000
LD_ABS_W, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
NOTIF_RECV, NOTIF_SEND = 0xC0502100, 0xC0182101  # _IOWR('!', 0|1, struct seccomp_notif[_resp])
CLONE_NEW = {
    0x00020000: "CLONE_NEWNS",
    0x02000000: "CLONE_NEWCGROUP",
    0x04000000: "CLONE_NEWUTS",
    0x08000000: "CLONE_NEWIPC",
    0x10000000: "CLONE_NEWUSER",
    0x20000000: "CLONE_NEWPID",
    0x40000000: "CLONE_NEWNET",
}


@dataclass(frozen=True)
class Arch:
    """One machine's audit architecture and the numbers of the calls the filter looks at."""

    audit: int
    seccomp: int  # the number of seccomp(2) itself
    refused: dict[int, str]
    clone: int
    clone3: int
    extra_abi_bit: int = 0  # x32 calls: the same audit arch, numbers with this bit set


_NEW_MOUNT_API = {
    428: "open_tree",
    429: "move_mount",
    430: "fsopen",
    431: "fsconfig",
    432: "fsmount",
    433: "fspick",
    442: "mount_setattr",
    467: "open_tree_attr",
}
ARCHES = {
    "x86_64": Arch(
        0xC000003E,
        317,
        {165: "mount", 166: "umount2", 155: "pivot_root", 272: "unshare", 308: "setns"}
        | _NEW_MOUNT_API,
        clone=56,
        clone3=435,
        extra_abi_bit=0x40000000,
    ),
    "aarch64": Arch(
        0xC00000B7,
        277,
        {40: "mount", 39: "umount2", 41: "pivot_root", 97: "unshare", 268: "setns"}
        | _NEW_MOUNT_API,
        clone=220,
        clone3=435,
    ),
}


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _prctl(libc: ctypes.CDLL, *args: int) -> None:
    if libc.prctl(*(ctypes.c_ulong(a) for a in args), *[ctypes.c_ulong(0)] * (5 - len(args))):
        raise OSError(ctypes.get_errno(), f"prctl {args[0]}: {os.strerror(ctypes.get_errno())}")


def drop_capabilities() -> None:
    """Empty every capability set of this process (OSError when the kernel refuses)."""
    libc = _libc()
    last = _last_capability()
    for cap in range(last + 1):  # needs CAP_SETPCAP: before the others go
        with contextlib.suppress(OSError):
            _prctl(libc, PR_CAPBSET_DROP, cap)
    with contextlib.suppress(OSError):  # kernels before 4.3 have no ambient set
        _prctl(libc, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = struct.pack("=Ii", CAP_VERSION_3, 0)
    data = bytes(24)  # two {effective, permitted, inheritable}, all empty
    if libc.capset(ctypes.c_char_p(header), ctypes.c_char_p(data)) != 0:
        raise OSError(ctypes.get_errno(), f"capset: {os.strerror(ctypes.get_errno())}")


def _last_capability() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text(encoding="ascii"))
    except (OSError, ValueError):
        return 63


def no_new_privs() -> None:
    """execve never grants privileges again, in this process or any it starts."""
    _prctl(_libc(), PR_SET_NO_NEW_PRIVS, 1)


def machine() -> Arch | None:
    """This process's architecture, when the filter knows its system call numbers."""
    if struct.calcsize("P") != 8:  # a 32-bit Python on a 64-bit kernel: another ABI
        return None
    return ARCHES.get(os.uname().machine)


def filter_note() -> str:
    """Why no seccomp filter is installed on this machine, or ''."""
    return "" if machine() is not None else f"no seccomp filter for {os.uname().machine}"


def install_filter(arch: Arch, notify: bool) -> int | None:
    """Install the filter (no_new_privs first); with `notify`, refused calls wait for a
    listener and its fd is returned; None if refusals are plain EPERM (not asked for, or a
    kernel without seccomp user notification). OSError if no filter could be installed."""
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    actions = ((RET_USER_NOTIF, FLAG_NEW_LISTENER),) if notify else ()
    for action, flags in (*actions, (RET_ERRNO | errno.EPERM, 0)):
        program = _program(arch, action)
        code = ctypes.create_string_buffer(program, len(program))
        prog = struct.pack("@HP", len(program) // 8, ctypes.addressof(code))
        fd = libc.syscall(
            ctypes.c_long(arch.seccomp),
            ctypes.c_long(SECCOMP_SET_MODE_FILTER),
            ctypes.c_long(flags),
            ctypes.c_char_p(prog),
        )
        if fd >= 0:
            return fd if flags else None
    raise OSError(ctypes.get_errno(), f"seccomp: {os.strerror(ctypes.get_errno())}")


def _program(arch: Arch, refuse: int) -> bytes:
    """The BPF program: check the arch, refuse the mount and namespace calls, allow the rest."""
    enosys = RET_ERRNO | errno.ENOSYS
    code = [(LD_ABS_W, 0, 0, 4), (JEQ, 1, 0, arch.audit), (RET, 0, 0, enosys), (LD_ABS_W, 0, 0, 0)]
    if arch.extra_abi_bit:
        code += [(JGE, 0, 1, arch.extra_abi_bit), (RET, 0, 0, enosys)]
    for number in arch.refused:
        code += [(JEQ, 0, 1, number), (RET, 0, 0, refuse)]
    code += [(JEQ, 0, 1, arch.clone3), (RET, 0, 0, enosys)]
    mask = sum(CLONE_NEW)
    # clone: the low half of its first argument (flags; both arches are little-endian)
    code += [(JEQ, 0, 3, arch.clone), (LD_ABS_W, 0, 0, 16), (JSET, 0, 1, mask)]
    code += [(RET, 0, 0, refuse), (RET, 0, 0, RET_ALLOW)]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in code)


class Listener:
    """The receiving end of refused calls: notes each (who, what) to `notes`, then answers
    EPERM. Run by the PID namespace's init, which has nothing else to do."""

    def __init__(self, fd: int, notes: int, arch: Arch) -> None:
        self.fd, self.notes, self.arch = fd, notes, arch
        self.worker = 0  # the worker's pid, once known: its own calls are the agent's code

    def handle(self) -> None:
        """Answer one waiting notification (the caller may have died meanwhile)."""
        request = bytearray(80)  # struct seccomp_notif, zeroed as the kernel requires
        try:
            fcntl.ioctl(self.fd, NOTIF_RECV, request)
        except OSError:
            return
        ident, pid = struct.unpack_from("=QI", request, 0)
        number = struct.unpack_from("=i", request, 16)[0]
        flags = struct.unpack_from("=Q", request, 32)[0]  # args[0]: clone's flags
        where = "the worker (agent code, e.g. through ctypes)" if pid == self.worker else ""
        note = f"{self._what(number, flags)} (refused by the sandbox) in {where or _command(pid)}"
        with contextlib.suppress(OSError):  # before the answer: the worker reads it after
            os.write(self.notes, note.encode("utf-8", "replace")[:512] + b"\n")
        with contextlib.suppress(OSError):
            fcntl.ioctl(self.fd, NOTIF_SEND, struct.pack("=QqiI", ident, 0, -errno.EPERM, 0))

    def _what(self, number: int, flags: int) -> str:
        if number == self.arch.clone:
            names = [name for bit, name in CLONE_NEW.items() if flags & bit]
            return f"clone with {'|'.join(names)}"
        return self.arch.refused.get(number, f"system call {number}")


def _command(pid: int) -> str:
    """`argv` of a process of this PID namespace, for the note."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    except OSError:
        return f"process {pid}"
    text = one_line(argv)
    return f"`{text}`" if text else f"process {pid}"


def one_line(argv: list[bytes], limit: int = 120) -> str:
    """A command line on one line: the program's name, then its arguments, spaces collapsed."""
    if not argv or not argv[0]:
        return ""
    words = [os.path.basename(os.fsdecode(argv[0]))] + [os.fsdecode(a) for a in argv[1:]]
    text = " ".join(" ".join(words).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_notes(fd: int) -> list[str]:
    """The notes written since the last read (`fd` is non-blocking)."""
    data = b""
    with contextlib.suppress(BlockingIOError, OSError):
        while chunk := os.read(fd, 65536):
            data += chunk
    return [line for line in data.decode("utf-8", "replace").splitlines() if line]
