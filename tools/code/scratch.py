"""The program's writable folders on one tmpfs of the run's size and number of files, and its outputs back out.

Inside the isolation (bubblewrap or `unshare`: both hand the launcher the capabilities of its namespaces, which it
drops before the program runs), the launcher mounts one tmpfs with the run's `folder_mb` and `files` as its `size`
and `nr_inodes`, copies the inputs from the host's working folder onto it, and binds three folders of it over the
program's working folder, /tmp and /dev/shm: together they hold at most that many bytes and files, whatever the
program does (a program that made 334,000 empty files in 18 s now meets "No space left on device" at the limit).
Then it forks. The program goes on in the child; the launcher waits for it, copies the regular files it left in its
working folder (at most `max_files`, each at most `max_bytes`) into the host's folder through a descriptor opened
before the tmpfs hid it, writes notes on what it left out to `notes_fd`, and exits as the program did. The tmpfs
goes with the namespace: nothing the program made is ever on the host's disk, so there is nothing to clean up.

Standard library only: the sandboxed interpreter loads this.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import sys
from typing import Any

from tools.code import namespaces, syscalls

#: How the launcher reports a folder it could not prepare (the runner names the reason).
EXIT_SCRATCH = 4
_NOTES = 20


def enter(spec: dict[str, Any], user: int | None) -> None:
    """Move the working folder, /tmp and /dev/shm onto the run's tmpfs and fork; returns in the child (the program's
    process, in its working folder). `spec`: size_mb, files, max_files, max_bytes, notes_fd."""
    home = os.getcwd()
    notes_fd = int(spec["notes_fd"])
    host = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
    try:
        inputs = _prepare(home, host, spec, user)
    except OSError as exc:
        full = exc.errno in (28, 27)  # ENOSPC, EFBIG: the inputs alone exceed the folder limit
        why = "the inputs alone exceed the disk limit" if full else f"the sandbox could not prepare its folders: {exc}"
        print(f"{'disk limit' if full else 'sandbox'}: {why}", file=sys.stderr)
        os._exit(EXIT_SCRATCH)
    program = os.fork()
    if program == 0:
        os.close(host)
        os.close(notes_fd)
        os.chdir(home)
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.close(0)
    _, status = os.waitpid(program, 0)
    with contextlib.suppress(OSError):  # whatever the program left running stops now, before the copy
        os.kill(-1, signal.SIGKILL)  # every process of this PID namespace but its init and this one
    notes: list[str] = []
    with contextlib.suppress(OSError):
        notes = copy_out(home, host, inputs, int(spec["max_files"]), int(spec["max_bytes"]))
    with contextlib.suppress(OSError):
        os.write(notes_fd, json.dumps(notes).encode())
    namespaces.exit_like(status)


def _prepare(home: str, host: int, spec: dict[str, Any], user: int | None) -> dict[str, bytes]:
    """Mount the tmpfs, copy the inputs in, bind its folders over home, /tmp and /dev/shm; the inputs copied. Only
    in a mount namespace other than the host's (`host_mounts`, the runner's): a launcher started outside one would
    mount over the host's own folders.

    The tmpfs is mounted on /dev/shm first (nothing of the view lies below it). What the view put under /tmp — an
    interpreter that lives there, bound read-only, and the links to it — is carried over to the tmpfs's /tmp before
    that covers the old one."""
    if os.stat("/proc/self/ns/mnt").st_ino == int(spec["host_mounts"]):
        raise OSError(0, "no mount namespace of its own: its mounts would cover the host's /dev/shm and /tmp")
    scratch = "/dev/shm"
    options = f"mode=0755,size={int(spec['size_mb'])}m,nr_inodes={int(spec['files'])}"
    nested = _mounts_under("/tmp")
    syscalls.mount("tmpfs", scratch, "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, options)
    for name, mode in (("home", 0o755), ("tmp", 0o1777), ("shm", 0o1777)):
        os.mkdir(f"{scratch}/{name}")
        os.chmod(f"{scratch}/{name}", mode)
        if user is not None:
            os.chown(f"{scratch}/{name}", user, user)
    _carry_over("/tmp", f"{scratch}/tmp", nested)
    inputs: dict[str, bytes] = {}
    for name in sorted(os.listdir(host)):
        with contextlib.closing(_FileAt(name, host)) as given:
            if given.fd is None:
                continue
            data = given.read(-1)
        path = f"{scratch}/home/{name}"
        with open(path, "xb") as copy:
            copy.write(data)
        os.chmod(path, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        inputs[name] = data
    for source, target in ((f"{scratch}/tmp", "/tmp"), (f"{scratch}/home", home), (f"{scratch}/shm", scratch)):
        syscalls.mount(source, target, None, syscalls.MS_BIND | syscalls.MS_REC)
    return inputs


def _mounts_under(folder: str) -> list[str]:
    """The mount points strictly below `folder`, parents first."""
    found = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
        for line in table:
            point = namespaces.unescape(line.split()[4])
            if point.startswith(folder.rstrip("/") + "/"):
                found.append(point)
    return sorted(set(found), key=len)


def _carry_over(old: str, new: str, nested: list[str]) -> None:
    """Recreate under `new` the folders and links the view made under `old`, and bind its mounts there read-only."""
    for root, dirs, names in os.walk(old):
        target = new + root[len(old) :]
        for name in dirs + names:
            path = os.path.join(root, name)
            if os.path.islink(path):
                os.symlink(os.readlink(path), os.path.join(target, name))
            elif os.path.isdir(path):
                os.makedirs(os.path.join(target, name), exist_ok=True)
        dirs[:] = [name for name in dirs if os.path.join(root, name) not in nested]  # a mount: bound below
    for point in nested:
        target = new + point[len(old) :]
        os.makedirs(target, exist_ok=True)
        syscalls.mount(point, target, None, syscalls.MS_BIND | syscalls.MS_REC)
        flags = syscalls.MS_BIND | syscalls.MS_REMOUNT | syscalls.MS_RDONLY | syscalls.MS_NOSUID | syscalls.MS_NODEV
        with contextlib.suppress(OSError):  # keeps the flags the view gave it where the kernel insists
            syscalls.mount(None, target, None, flags)


def copy_out(home: str, host: int, inputs: dict[str, bytes], max_files: int, max_bytes: int) -> list[str]:
    """Copy the regular files the program left in `home` into the host folder `host`; notes on what was left out
    (the first `_NOTES`, then how many more)."""
    notes: list[str] = []
    left_out = copied = 0
    for name in sorted(os.listdir(home)):
        with contextlib.closing(_FileAt(name, None, home)) as source:
            if source.fd is None:
                note = f"{name} was left out: not a regular file"
            elif copied >= max_files or source.size > max_bytes:
                note = f"{name} was left out ({source.size} bytes; at most {max_files} files)"
            else:
                note, data = "", source.read(max_bytes)
        if note:
            left_out += 1
            if left_out <= _NOTES:
                notes.append(note)
            continue
        if inputs.get(name) == data:
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=host)  # an input of the same name, read-only on the host
        target = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=host)
        with os.fdopen(target, "wb") as handle:
            handle.write(data)
        copied += 1
    if left_out > _NOTES:
        notes.append(f"… and {left_out - _NOTES} more entries were left out")
    return notes


class _FileAt:
    """A regular file opened without following links (fd None when it is not one)."""

    def __init__(self, name: str, directory: int | None, folder: str = "") -> None:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
        self.fd: int | None = None
        self.size = 0
        try:
            fd = os.open(name if directory is not None else f"{folder}/{name}", flags, dir_fd=directory)
        except OSError:
            return
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            return
        self.fd, self.size = fd, info.st_size

    def read(self, most: int) -> bytes:
        assert self.fd is not None
        chunks, total = [], 0
        while most < 0 or total < most:
            chunk = os.read(self.fd, 1024 * 1024 if most < 0 else min(1024 * 1024, most - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
