"""Which process isolation this machine offers, the view of the file system it gives, and the command that runs
the sandbox launcher inside it.

Every isolation paor runs code under keeps the same promises, checked from inside by tests/sandbox:
- only the interpreter and the allowed libraries (read-only) and the working folder are visible, with a private
  /tmp and /dev/shm that live beside the folder and count against its limit (and go with it);
- no network (an empty network namespace), an own PID namespace whose processes all end with the program;
- `no_new_privs`, no capabilities, an unprivileged user (when paor runs as root, a user of its own drawn for the run,
  else paor's own user inside a user namespace), an empty environment.

In order of preference, each probed once per process by really running a program in it (tools/code/available.py):
- `bubblewrap`: `bwrap` builds the namespaces and the view;
- `unshare`: the launcher builds them itself with the kernel's system calls (`namespaces`): no tool needed, only
  Linux with user namespaces (or root);
- `none`: a plain child process with none of the promises, used only when the operator sets
  `PAOR_CODE_EXECUTION=unsandboxed-network`. Without an isolation and without that, code.execute is unavailable,
  with the reason.
"""

from __future__ import annotations

import grp
import importlib.util
import os
import pwd
import secrets
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tools.code.namespaces import Step

Kind = Literal["bubblewrap", "unshare", "none"]
KINDS: tuple[Kind, ...] = ("bubblewrap", "unshare")
OPT_IN_VARIABLE = "PAOR_CODE_EXECUTION"
OPT_IN_VALUE = "unsandboxed-network"
NOBODY = 65534
#: The users paor as root runs programs as, one drawn per run, so that a program's process limit counts only its own
#: run's processes (all runs as one user shared it: a fork bomb in one run left the others none). No account's ids:
#: systemd's table of ranges (docs/UIDS-GIDS.md) has them unused, above its container ranges and below 0x7FFE0000.
RUN_UIDS = range(0x7000_0000, 0x7100_0000)
SANDBOX_HOME = "/home/sandbox"
SANDBOX_CODE = "/paor"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding `tools/`
#: This process's user and group id maps: which ids exist in its user namespace.
ID_MAPS = ("/proc/self/uid_map", "/proc/self/gid_map")
#: Libraries a program may import that live outside the standard library: they must be visible and readable.
LIBRARIES = ("RestrictedPython", "sympy", "mpmath")


@dataclass(frozen=True)
class Isolation:
    kind: Kind
    detail: str

    def describe(self) -> str:
        return f"{self.kind} ({self.detail})"


@dataclass(frozen=True)
class Space:
    """The host folders of one run: the program's working folder, its /tmp and /dev/shm, and (for `unshare`)
    the empty folder its new root is mounted on."""

    folder: Path
    tmp: Path
    shm: Path
    mount_point: Path


def sandbox_user() -> int | None:
    """The user one run's launcher becomes (each call draws anew). paor as root: a user of the run's own from
    RUN_UIDS where this user namespace has them (a host, a rootful container), else `nobody` where it exists (a
    container with a 65,536-id range: there concurrent runs share nobody's process limit). None keeps paor's own
    user, inside a new user namespace: paor is not root, or is the root of a rootless container with neither."""
    if os.geteuid() != 0:
        return None
    if all(_mapped(RUN_UIDS, table) for table in ID_MAPS):
        while True:  # an id no account holds (RUN_UIDS is no convention's, but a machine may break them)
            uid = secrets.choice(RUN_UIDS)
            if not _is_account(uid):
                return uid
    if all(_mapped(range(NOBODY, NOBODY + 1), table) for table in ID_MAPS):
        return NOBODY
    return None


def own_user_namespace() -> bool:
    """Whether a run's isolation needs a user namespace of its own: paor stays its own user (`sandbox_user`)."""
    return sandbox_user() is None


def _is_account(uid: int) -> bool:
    """Whether a user or a group of this machine has the id (the run's group id is the same number)."""
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(uid)
        except KeyError:
            continue
        return True
    return False


def _mapped(ids: range, table: str) -> bool:
    """Whether all of `ids` exist in this user namespace (one line of `table` covers them)."""
    try:
        lines = Path(table).read_text().splitlines()
    except OSError:
        return True  # no user namespaces here: every identity exists
    for line in lines:
        inside, _, count = (int(field) for field in line.split())
        if inside <= ids.start and ids.stop <= inside + count:
            return True
    return False


def system_folders(shown: list[str]) -> list[Step]:
    """The system's folders (/bin, /lib… as they are: folders or symlinks) and `shown`, the interpreter's and its
    libraries' (`read_only_paths`), read-only: what any confined child needs to run Python."""
    steps: list[Step] = []
    for top in ("bin", "sbin", "lib", "lib32", "lib64"):
        path = Path("/") / top
        if path.is_symlink():
            steps.append(("symlink", os.readlink(path), str(path)))
        elif path.is_dir():
            steps.append(("ro", str(path), str(path)))
    return steps + [("ro", path, path) for path in shown]


def view(space: Space) -> list[Step]:
    """What the program sees besides /proc and /dev: the working folder at SANDBOX_HOME, /tmp and /dev/shm — first,
    so an interpreter that lives under /tmp still shows through — then the system's and the interpreter's folders
    and the launcher's code (at SANDBOX_CODE) read-only."""
    steps: list[Step] = [("rw", str(space.folder), SANDBOX_HOME), ("rw", str(space.tmp), "/tmp")]
    steps.append(("rw", str(space.shm), "/dev/shm"))
    shown = read_only_paths()
    steps += system_folders(shown)
    steps += [("symlink", link, hop) for hop, link in _links_to_interpreter() if not _inside(hop, shown)]
    code = f"{SANDBOX_CODE}/tools"
    steps.append(("ro-file", str(PACKAGE_ROOT / "tools" / "__init__.py"), f"{code}/__init__.py"))
    steps.append(("ro", str(PACKAGE_ROOT / "tools" / "code"), f"{code}/code"))
    return steps


def command(kind: Kind, space: Space, python_args: list[str], info_fd: int | None = None) -> list[str]:
    """The command running `python_args` (arguments after the interpreter) in the sandbox. bubblewrap writes the
    PID of the namespace's first process, as JSON, to `info_fd`; `unshare` is entered by the launcher itself."""
    python = [sys.executable, *python_args]
    if kind == "bubblewrap":
        info = ["--info-fd", str(info_fd)] if info_fd is not None else []
        return [*_bwrap(view(space)), *info, "--", *python]
    return python


def launcher_root(kind: Kind) -> str:
    """Where the launcher finds `tools.code`: inside bubblewrap's view, or on the host (the `unshare` launcher
    imports it before it enters the namespaces)."""
    return SANDBOX_CODE if kind == "bubblewrap" else str(PACKAGE_ROOT)


def _bwrap(steps: list[Step]) -> list[str]:
    args = [
        _which("bwrap"),
        "--die-with-parent",
        "--new-session",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]
    if own_user_namespace():
        args.append("--unshare-user")
    # The launcher mounts the run's tmpfs (tools/code/scratch.py) with the capabilities of its namespaces, as under
    # `unshare`, and drops them all before the program runs (tools/code/privileges.py).
    args += ["--cap-add", "ALL", "--proc", "/proc", "--dev", "/dev"]
    made: set[str] = {"/dev"}
    flags = {"ro": "--ro-bind", "ro-file": "--ro-bind", "rw": "--bind", "symlink": "--symlink"}
    for operation, source, target in steps:
        args += [*_parents(target, made), flags[operation], source, target]
    return [*args, "--remount-ro", "/", "--chdir", SANDBOX_HOME]


def read_only_paths() -> list[str]:
    """/usr, the interpreter's installation and the folders the gate and the allowed libraries live in."""
    candidates = [
        "/usr",
        sys.base_prefix,
        sys.prefix,
        str(Path(sys.executable).resolve().parent.parent),
        *(site_of(module) for module in LIBRARIES),
    ]
    kept: list[str] = []
    for path in sorted({os.path.realpath(p) for p in candidates}, key=len):
        if not _inside(path, kept):
            kept.append(path)
    return kept


def readable_paths() -> list[str]:
    """The folders the program's imports read from: the standard library and each allowed library's package."""
    stdlib = sysconfig.get_paths()
    packages = []
    for module in LIBRARIES:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin is not None:
            packages.append(str(Path(spec.origin).resolve().parent))
    return [os.path.realpath(stdlib["stdlib"]), os.path.realpath(stdlib["platstdlib"]), *packages]


def _links_to_interpreter() -> list[tuple[str, str]]:
    """(path, link) for each symbolic link from sys.executable to the interpreter: a venv made from another venv
    runs through a link in a folder the view need not show."""
    links: list[tuple[str, str]] = []
    path = os.path.abspath(sys.executable)
    while os.path.islink(path) and len(links) < 40:
        link = os.readlink(path)
        links.append((path, link))
        path = os.path.normpath(os.path.join(os.path.dirname(path), link))
    return links


def _inside(path: str, folders: list[str]) -> bool:
    return any(path == folder or path.startswith(folder + "/") for folder in folders)


def site_of(module: str) -> str:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"{module} is not installed; code.execute needs it")
    return str(Path(spec.origin).resolve().parent.parent)


def _parents(path: str, made: set[str]) -> list[str]:
    """`--dir` for each missing ancestor, world-readable (bwrap would copy /root's 0700 otherwise)."""
    args: list[str] = []
    for parent in reversed(Path(path).parents):
        name = str(parent)
        if name == "/" or name in made:
            continue
        made.add(name)
        args += ["--perms", "0755", "--dir", name]
    return args


def _which(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise FileNotFoundError(f"{tool} is not installed")
    return found
