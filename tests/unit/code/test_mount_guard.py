"""The sandbox never mounts over the host's folders: a launcher outside a mount namespace of its own refuses to
prepare its tmpfs, and a run names a real isolation. (A run once given no isolation at all mounted three tmpfs over
this machine's /dev/shm, hiding PostgreSQL's shared memory from every new connection.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.code import scratch
from tools.code.runner import run_program


def test_a_launcher_in_the_hosts_mount_namespace_mounts_nothing(tmp_path: Path) -> None:
    host_mounts = os.stat("/proc/self/ns/mnt").st_ino
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    spec = {"host_mounts": host_mounts, "size_mb": 1, "files": 10, "max_files": 1, "max_bytes": 1, "notes_fd": 1}
    try:
        with pytest.raises(OSError, match="no mount namespace of its own"):
            scratch._prepare(str(tmp_path), folder, spec, None)
    finally:
        os.close(folder)


@pytest.mark.parametrize("kind", [None, "", "firejail"])
def test_a_run_under_no_known_isolation_is_refused_before_anything_starts(kind: object) -> None:
    with pytest.raises(ValueError, match="no isolation is called"):
        run_program("print(1)", kind=kind)  # type: ignore[arg-type]
