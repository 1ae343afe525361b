"""The program's last step before it runs: give up every privilege, for good.

`no_new_privs` (no setuid program or file capability can raise it again), an empty capability bounding set and
ambient set, then the unprivileged user (when the launcher is root) or, inside a user namespace where the user
stays, empty capability sets; last, the system-call filter that refuses new namespaces and mounts (`seccomp`).
Standard library only: the sandboxed interpreter loads this.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from tools.code import seccomp, syscalls


def drop(user: int | None) -> None:
    """Drop to `user` (None: keep this one) with no capabilities, `no_new_privs` set and no way to a namespace or
    mount of its own; OSError when any of it cannot be done."""
    _drop_bounding_set()
    with contextlib.suppress(OSError):  # kernels before 4.3 have no ambient set
        syscalls.prctl(syscalls.PR_CAP_AMBIENT, syscalls.PR_CAP_AMBIENT_CLEAR_ALL)
    syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1)
    if user is not None:
        os.setgroups([])
        os.setgid(user)
        os.setuid(user)  # a root → non-root change clears every capability
    syscalls.clear_capabilities()
    seccomp.confine()


def _drop_bounding_set() -> None:
    """Only a process holding CAP_SETPCAP may (and need) drop them; without it, there is nothing to keep."""
    try:
        last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        last = 63
    for capability in range(last + 1):
        try:
            syscalls.prctl(syscalls.PR_CAPBSET_DROP, capability)
        except OSError:
            return
