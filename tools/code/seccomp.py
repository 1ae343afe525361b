"""The system-call filter that keeps a confined program inside the namespaces it was given.

Namespaces confine a program only while it cannot make new ones: a program that creates a user namespace becomes
"root" there, and may then mount a tmpfs with no size or file limit of its own (issue 45: 2 GB and 30,000 files
past the sandbox's tmpfs and `code_memory_mb`). bubblewrap and the `unshare` fallback alike hand the program a
process that no capability lets mount, so the only way there is a new namespace. This filter, loaded last by
`privileges.drop`, refuses with EPERM every call that creates or joins a namespace or changes the mount table:
`unshare`, `setns`, `clone` with any `CLONE_NEW*` flag, the mount calls (old and new API), `pivot_root`, `chroot`.
`clone3` passes its flags in memory a filter cannot read, so it answers ENOSYS and the C library falls back to
`clone` (as under Docker's default profile). Calls of another architecture (i386 or x32 on x86_64) kill the process
(libseccomp's default), so no second system-call table slips past.

It is libseccomp's (the library every container runtime uses), called through ctypes; a machine without
libseccomp cannot keep the sandbox's promises, so `confine()` raises and the isolation is not offered. Standard
library only: the sandboxed interpreter loads this.
"""

from __future__ import annotations

import ctypes
import errno
import platform

from tools.code import syscalls

_ALLOW = 0x7FFF0000
_MASKED_EQ = 7
#: Calls that make or join a namespace or change what is mounted: refused whatever their arguments.
DENIED = (
    "unshare",
    "setns",
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
)
CLONE_NEWCGROUP = 0x02000000
#: Each flag that makes `clone` create a namespace (CLONE_NEWTIME exists for unshare and clone3 only).
NEW_NAMESPACE_FLAGS = (
    syscalls.CLONE_NEWNS,
    CLONE_NEWCGROUP,
    syscalls.CLONE_NEWUTS,
    syscalls.CLONE_NEWIPC,
    syscalls.CLONE_NEWUSER,
    syscalls.CLONE_NEWPID,
    syscalls.CLONE_NEWNET,
)


class _ArgCmp(ctypes.Structure):
    """libseccomp's `struct scmp_arg_cmp`."""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


def _library() -> ctypes.CDLL:
    try:  # by its soname: ctypes.util.find_library would start programs, and the limits are already in force
        library = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as exc:
        raise OSError(errno.ENOENT, f"seccomp: libseccomp is not installed ({exc})") from None
    library.seccomp_init.restype = ctypes.c_void_p
    library.seccomp_init.argtypes = [ctypes.c_uint32]
    library.seccomp_syscall_resolve_name.restype = ctypes.c_int
    library.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    library.seccomp_rule_add_array.restype = ctypes.c_int
    library.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    library.seccomp_load.restype = ctypes.c_int
    library.seccomp_load.argtypes = [ctypes.c_void_p]
    library.seccomp_release.argtypes = [ctypes.c_void_p]
    return library


def confine() -> None:
    """Load the filter into this process (and everything it starts, for good); OSError when it cannot be."""
    library = _library()
    context = library.seccomp_init(_ALLOW)
    if not context:
        raise OSError(errno.ENOMEM, "seccomp: seccomp_init failed")
    try:
        for name in DENIED:
            _add(library, context, errno.EPERM, name)
        flags_argument = 1 if platform.machine() == "s390x" else 0  # s390 swaps clone's first two arguments
        for flag in NEW_NAMESPACE_FLAGS:
            _add(library, context, errno.EPERM, "clone", _ArgCmp(flags_argument, _MASKED_EQ, flag, flag))
        _add(library, context, errno.ENOSYS, "clone3")
        result = library.seccomp_load(context)
        if result != 0:
            raise OSError(-result, f"seccomp: loading the filter failed: {errno.errorcode.get(-result, result)}")
    finally:
        library.seccomp_release(context)


def _add(library: ctypes.CDLL, context: int, code: int, name: str, *compare: _ArgCmp) -> None:
    number = library.seccomp_syscall_resolve_name(name.encode())
    if number == -1:  # a call this libseccomp does not know: no kernel it runs on offers it either
        return
    conditions = (_ArgCmp * len(compare))(*compare) if compare else None
    result = library.seccomp_rule_add_array(context, _errno_action(code), number, len(compare), conditions)
    if result != 0:
        raise OSError(-result, f"seccomp: a rule for {name} was refused: {errno.errorcode.get(-result, result)}")
