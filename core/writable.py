"""Whether paor can write where it is told to (PAOR_HOME, the database, the output folder), checked before a run
starts: each problem is a short phrase that completes "<setting> <path> …", never an exception.

`os.access` asks the kernel the question the later write would ask, so it answers right for ordinary users
(permission bits), for root (who may write anywhere except read-only file systems and immutable files) and for
read-only mounts alike; nothing is created to find out.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

#: Files SQLite writes beside a database in WAL mode; a read-only one makes the database read-only.
SQLITE_COMPANIONS = ("-wal", "-shm")


def folder_problem(folder: Path) -> str | None:
    """Why `folder` cannot be created or written, or None: "cannot be created: /a is a file",
    "is not writable (permission denied)", "is a file, not a folder"."""
    try:
        return _folder_problem(folder.expanduser().absolute())
    except OSError as exc:  # a folder on the way cannot even be searched
        return f"cannot be reached ({(exc.strerror or str(exc)).lower()})"


def _folder_problem(folder: Path) -> str | None:
    if folder.exists():
        if not folder.is_dir():
            return "is a file, not a folder"
        return None if _writable(folder) else f"is not writable ({_why(folder)})"
    parent = _nearest_existing(folder)
    if not parent.is_dir():
        return f"cannot be created: {parent} is a file"
    return None if _writable(parent) else f"cannot be created: {parent} is not writable ({_why(parent)})"


def database_problem(path: Path) -> str | None:
    """Why the SQLite file `path` cannot be opened for writing, or None: "is read-only (permission denied)",
    "cannot be read (permission denied)", or the problem of its folder (SQLite writes its journal there)."""
    try:
        return _database_problem(path.expanduser().absolute())
    except OSError as exc:
        return f"cannot be reached ({(exc.strerror or str(exc)).lower()})"


def _database_problem(path: Path) -> str | None:
    if path.exists():
        if path.is_dir():
            return "is a folder, not a database file"
        if not os.access(path, os.R_OK):
            return f"cannot be read ({_why(path)})"
        for file in (path, *(path.with_name(path.name + suffix) for suffix in SQLITE_COMPANIONS)):
            if file.exists() and not os.access(file, os.W_OK):
                return f"is read-only ({_why(file)}{'' if file == path else f': {file.name}'})"
    problem = folder_problem(path.parent)
    return None if problem is None else f"cannot be written: its folder {path.parent} {problem}"


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _why(path: Path) -> str:
    """The kernel's reason a write is refused: a read-only file system or missing permission."""
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return os.strerror(errno.EROFS).lower()
    except OSError:
        pass
    return os.strerror(errno.EACCES).lower()
