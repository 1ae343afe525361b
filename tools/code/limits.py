"""Resource limits of one sandboxed program, applied with `resource` inside the sandbox before the program runs.

Hard limits equal soft ones, so the program cannot raise them again; they are set while the launcher still runs
as root (where it does), and the process-count limit takes effect once it has dropped to an unprivileged user.
"""

from __future__ import annotations

import resource
from dataclasses import asdict, dataclass

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What one program may use. `processes` counts the sandbox user's processes: inside the user namespace
    when paor is not root (the launcher and its namespace's init included), else those of the user drawn for the run
    (all of `nobody`'s in a container whose ids stop below `isolation.RUN_UIDS`)."""

    cpu_s: int = 30
    wall_s: float = 30.0
    memory_mb: int = 1024
    file_mb: int = 64
    folder_mb: int = 256  # the working folder, /tmp and /dev/shm together: one tmpfs of this size (tools/code/scratch)
    open_files: int = 64
    processes: int = 8
    files: int = 10_000  # files and folders in them together (the tmpfs's nr_inodes): rlimits cannot bound them

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def apply(limits: Limits) -> None:
    """Lower this process's rlimits; every process it starts inherits them."""
    # CPU: the soft limit sends SIGXCPU (a clear reason), the hard one a second later SIGKILL.
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
    for kind, value in (
        (resource.RLIMIT_AS, limits.memory_mb * MB),
        (resource.RLIMIT_FSIZE, limits.file_mb * MB),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_NPROC, limits.processes),
        (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(kind, (int(value), int(value)))
