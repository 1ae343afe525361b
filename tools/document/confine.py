"""What a parse child gives up before it reads a document's bytes (tools/document/parse_server.py).

The same walls as code.execute's sandbox where the machine has them (tools/code/isolation.py, `unshare`): new mount,
network, IPC and UTS namespaces (and a user namespace when paor is not root), a read-only view holding only the
interpreter, its libraries and paor's `tools` and `graph` packages (no `.env`, no database, no other client's
documents), a private /tmp of `TMP_MB` and `TMP_FILES`, no network at all, `no_new_privs`, no capabilities, and
a user of its own when paor runs as root. On any machine, rlimits: the address space and CPU time the request allows, no
core files, files of at most `FILE_MB`, `OPEN_FILES` descriptors and no new process or thread (`PROCESSES`: the
child itself is the one). Where the namespaces cannot be entered (no user namespaces, a seccomp filter), the child
keeps the rlimits and says so in `Confinement.isolated`.
"""

from __future__ import annotations

import contextlib
import os
import resource
from dataclasses import dataclass

from tools.code import isolation, namespaces, privileges, syscalls

MB = 1024 * 1024
#: Largest file a parse child may write (it writes none: the document comes on a socket, the answer goes back on it).
FILE_MB = 1
#: Open file descriptors (its socket, what a lazily imported reader opens).
OPEN_FILES = 64
#: Processes and threads of the child's user, the child included: none besides itself.
PROCESSES = 1
#: Its private /tmp.
TMP_MB, TMP_FILES = 4, 64
#: paor's own packages a reader may import lazily: visible read-only, nothing else of the repository.
PACKAGES = ("tools", "core")


@dataclass(frozen=True)
class Confinement:
    isolated: bool  # the namespaces and the view hold
    detail: str  # what went wrong entering them, when they do not


def confine(
    memory_ceiling: int, cpu_s: int, mount_point: str | None, steps: list[namespaces.Step] | None
) -> Confinement:
    """Confine this (single-threaded, freshly forked) process for good. `mount_point`: an empty folder outside
    every path of the view `steps` (`view()`), where the view is built; None: no namespaces."""
    syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1)
    detail = "no view" if mount_point is None or steps is None else ""
    isolated = False
    user = isolation.sandbox_user()
    if mount_point is not None and steps is not None:
        try:
            namespaces.isolate(mount_point, steps, new_user=user is None)
            isolated = True
        except OSError as exc:
            detail = str(exc)
    for kind, value in (
        (resource.RLIMIT_AS, memory_ceiling),
        (resource.RLIMIT_FSIZE, FILE_MB * MB),
        (resource.RLIMIT_NOFILE, OPEN_FILES),
        (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(kind, (value, value))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_NPROC, (PROCESSES, PROCESSES))
    with contextlib.suppress(OSError):  # without namespaces (or without capabilities) there is nothing to drop
        privileges.drop(user if isolated else None)
    return Confinement(isolated, detail)


def view() -> list[namespaces.Step]:
    """The interpreter and its libraries (as code.execute's sandbox shows them), paor's packages, a small /tmp."""
    steps: list[namespaces.Step] = [("tmpfs", f"mode=1777,size={TMP_MB}m,nr_inodes={TMP_FILES}", "/tmp")]
    shown = isolation.read_only_paths()
    steps += isolation.system_folders(shown)
    for package in PACKAGES:
        folder = os.path.realpath(isolation.PACKAGE_ROOT / package)
        if not any(folder == above or folder.startswith(above + "/") for above in shown):
            steps.append(("ro", folder, folder))
    return steps
