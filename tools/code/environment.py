"""The program's world: a fresh working folder with read-only copies of its inputs, an empty environment, and
the files it leaves there collected afterwards.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tools.documents import safe_file_name, unique_name

#: The program's environment: nothing — no API keys, no PAOR_* settings, no proxies, no HOME.
SANDBOX_ENV: dict[str, str] = {}
MAX_OUTPUT_FILES = 20


@dataclass(frozen=True)
class Workspace:
    folder: Path  # the program's working folder
    tmp: Path  # its /tmp and /dev/shm: the other places it may write, counted with the folder
    shm: Path
    mount_point: Path  # where the `unshare` isolation mounts the program's root
    logs: Path  # stdout/stderr files, outside the program's view
    inputs: dict[str, bytes]  # name → content as copied in

    @property
    def writable(self) -> tuple[Path, ...]:
        return (self.folder, self.tmp, self.shm)


@contextmanager
def workspace(inputs: Sequence[tuple[str, bytes]], owner: int | None) -> Iterator[Workspace]:
    """A temporary working folder, /tmp and /dev/shm (owned by `owner` when paor drops to that user), a mount
    point and a log folder; all removed afterwards, whatever the program left there."""
    root = Path(tempfile.mkdtemp(prefix="paor-code-"))
    try:
        folder, tmp, shm, mount_point, logs = (root / name for name in ("work", "tmp", "shm", "root", "logs"))
        for path in (folder, tmp, shm, mount_point, logs):
            path.mkdir(mode=0o700)
        taken: set[str] = set()
        copied: dict[str, bytes] = {}
        for name, data in inputs:
            target = folder / unique_name(safe_file_name(name), taken)
            target.write_bytes(data)
            target.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
            copied[target.name] = data
        folder.chmod(0o755)
        if owner is not None:
            root.chmod(0o711)  # the program's user may pass through to its folders, not list the logs
            for path in (folder, tmp, shm):
                os.chown(path, owner, owner)
        yield Workspace(folder, tmp, shm, mount_point, logs, copied)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def collect_outputs(space: Workspace, max_bytes: int) -> tuple[list[tuple[str, bytes]], list[str]]:
    """Regular files the program wrote in its folder (inputs it left unchanged excluded), and notes on what
    was left out: links, sub-folders, files beyond MAX_OUTPUT_FILES or `max_bytes`."""
    files: list[tuple[str, bytes]] = []
    notes: list[str] = []
    for path in sorted(space.folder.iterdir()):
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):
            notes.append(f"{path.name} was left out: not a regular file")
            continue
        if len(files) >= MAX_OUTPUT_FILES or info.st_size > max_bytes:
            notes.append(f"{path.name} was left out ({info.st_size} bytes; at most {MAX_OUTPUT_FILES} files)")
            continue
        data = path.read_bytes()
        if space.inputs.get(path.name) == data:
            continue
        files.append((path.name, data))
    return files, notes


def folder_bytes(folders: Sequence[Path], stop_at: int) -> int:
    """Bytes under all `folders`, counting no further than `stop_at` (a program may create many small files fast)."""
    total = 0
    for folder in folders:
        for root, dirs, names in os.walk(folder):
            for name in names + dirs:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(root, name)).st_blocks * 512 + 512
                if total > stop_at:
                    return total
    return total


def read_capped(path: Path, max_bytes: int) -> bytes:
    with path.open("rb") as handle:
        return handle.read(max_bytes)
