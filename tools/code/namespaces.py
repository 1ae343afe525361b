"""The `unshare` isolation, entered by the launcher itself through system calls (no external tool).

`enter(view)` gives the calling process the same world bubblewrap gives: new mount, network, PID, IPC and UTS
namespaces (and a user namespace when paor is not root); a read-only root holding only the paths of the view —
the interpreter, the working folder, private /tmp and /dev/shm — plus /proc of the new PID namespace and a minimal
/dev. The process that returns from `enter` is PID 2 of the namespace; PID 1 is a small init, and the process that
started the launcher waits for it, so when the program ends, or PID 1 is killed, everything it started goes, and
the launcher's own process exits only after the kernel has reaped them all.

Standard library only: the sandboxed interpreter loads this.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Sequence
from typing import NoReturn

from tools.code import syscalls

#: One entry of a view: (operation, source, target). Operations: "ro" and "rw" bind a folder read-only or
#: writable, "ro-file" binds a file read-only, "symlink" makes `target` a link to `source`, "tmpfs" mounts a new
#: tmpfs at `target` with the mount options `source` (its size and number of files: `size=…,nr_inodes=…`).
Step = tuple[str, str, str]

_DEVICES = ("null", "zero", "full", "random", "urandom")
_NAMESPACES = (
    syscalls.CLONE_NEWNS | syscalls.CLONE_NEWNET | syscalls.CLONE_NEWPID | syscalls.CLONE_NEWIPC | syscalls.CLONE_NEWUTS
)
#: Mount flags that a remount inside a user namespace must keep, as `statvfs` reports them.
_KEPT_FLAGS = (
    (os.ST_NOEXEC, syscalls.MS_NOEXEC),
    (os.ST_NOATIME, syscalls.MS_NOATIME),
    (os.ST_NODIRATIME, syscalls.MS_NODIRATIME),
    (os.ST_RELATIME, syscalls.MS_RELATIME),
)


def enter(mount_point: str, steps: Sequence[Step], home: str, new_user: bool) -> None:
    """Move this process into new namespaces with only the view's paths visible; returns as PID 2, in `home`.
    `mount_point` is an empty folder, outside every path of the view, that becomes the new root. `new_user`: a
    user namespace of its own too (whenever the launcher will not become another user), so the process limit
    counts only the sandbox's processes."""
    uid, gid = os.getuid(), os.getgid()
    syscalls.unshare(_NAMESPACES | (syscalls.CLONE_NEWUSER if new_user else 0))
    if new_user:  # keep the same ids inside; the capabilities the namespace grants are dropped before the program
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _wait_for(os.fork())  # the launcher's own process stays outside, waiting for PID 1
    syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
    _build_root(mount_point, steps)
    os.chdir(home)
    _wait_for(os.fork())  # PID 1: reaps what the program leaves behind, ends with it


def isolate(mount_point: str, steps: Sequence[Step], new_user: bool) -> None:
    """Move this process into new mount, network, IPC and UTS namespaces (and a user namespace when `new_user`)
    with only the view's paths visible — no PID namespace and no fork: for a process that starts nothing (a parse
    child, whose process limit forbids it). /proc is not mounted (that needs a PID namespace of its own): open
    what you need of it before."""
    uid, gid = os.getuid(), os.getgid()
    syscalls.unshare(_NAMESPACES & ~syscalls.CLONE_NEWPID | (syscalls.CLONE_NEWUSER if new_user else 0))
    if new_user:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _build_root(mount_point, steps, proc=False)


def _wait_for(child: int) -> None:
    """In the parent: reap children until `child` ends, then exit with its status. In the child: return."""
    if child == 0:
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.close(0)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        if pid == child:
            exit_like(status)


def exit_like(status: int) -> NoReturn:
    """Exit as the program did: its exit code, or 128 + the signal that killed it (as a shell reports it)."""
    os._exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))


def _build_root(root: str, steps: Sequence[Step], *, proc: bool = True) -> None:
    os.umask(0o022)  # folders made for the view are world-readable, whatever hides them on the host (/root 0700)
    syscalls.mount(None, "/", None, syscalls.MS_REC | syscalls.MS_PRIVATE)
    syscalls.mount("tmpfs", root, "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, "mode=0755,size=1m")
    if proc:
        os.mkdir(f"{root}/proc")
        syscalls.mount("proc", f"{root}/proc", "proc", syscalls.MS_NOSUID | syscalls.MS_NODEV | syscalls.MS_NOEXEC)
    _build_dev(f"{root}/dev")
    for operation, source, target in steps:
        path = root + target
        os.makedirs(path if operation in ("ro", "rw", "tmpfs") else os.path.dirname(path), exist_ok=True)
        if operation == "symlink":
            os.symlink(source, path)
            continue
        if operation == "tmpfs":  # `source`: the mount options (size, nr_inodes, mode)
            syscalls.mount("tmpfs", path, "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, source)
            continue
        if operation == "ro-file":
            with open(path, "x"):
                pass
        _bind(source, path, read_only=operation != "rw")
    _remount(f"{root}/dev", syscalls.MS_RDONLY)
    os.chdir(root)
    syscalls.pivot_root(".", ".")  # the old root now lies over the new one: detach it, and the host is gone
    syscalls.umount2(".", syscalls.MNT_DETACH)
    os.chdir("/")
    syscalls.mount(None, "/", None, syscalls.MS_REMOUNT | syscalls.MS_RDONLY | syscalls.MS_NOSUID | syscalls.MS_NODEV)


def _build_dev(dev: str) -> None:
    os.mkdir(dev)
    syscalls.mount("tmpfs", dev, "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, "mode=0755,size=64k")
    for name in _DEVICES:
        with open(f"{dev}/{name}", "x"):
            pass
        syscalls.mount(f"/dev/{name}", f"{dev}/{name}", None, syscalls.MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "0"), ("stdout", "1"), ("stderr", "2")):
        os.symlink(target if name == "fd" else f"/proc/self/fd/{target}", f"{dev}/{name}")
    os.mkdir(f"{dev}/shm")


def _bind(source: str, target: str, *, read_only: bool) -> None:
    """Bind `source` with everything mounted under it, each mount then made nosuid and nodev (and read-only)."""
    syscalls.mount(source, target, None, syscalls.MS_BIND | syscalls.MS_REC)
    for mount_point in _mounts_under(target):
        _remount(mount_point, syscalls.MS_RDONLY if read_only else 0)


def _remount(target: str, extra: int) -> None:
    flags = syscalls.MS_BIND | syscalls.MS_REMOUNT | syscalls.MS_NOSUID | syscalls.MS_NODEV | extra
    with contextlib.suppress(OSError):  # a mount point that is no folder we can stat keeps its flags
        kept = os.statvfs(target).f_flag
        flags |= sum(mount_flag for stat_flag, mount_flag in _KEPT_FLAGS if kept & stat_flag)
    syscalls.mount(None, target, None, flags)


def _mounts_under(target: str) -> list[str]:
    """`target` and the mount points below it, parents first (from this namespace's mountinfo)."""
    found = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
        for line in table:
            point = unescape(line.split()[4])
            if point == target or point.startswith(target.rstrip("/") + "/"):
                found.append(point)
    return sorted(set(found), key=len)


def unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)
