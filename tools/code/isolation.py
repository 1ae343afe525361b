"""Which process isolation this machine offers, and the command that runs the sandbox launcher inside it.

In order of preference, each probed by really running Python in it once per process:
- `bubblewrap`: `bwrap` with new network, PID, IPC and UTS namespaces and a file-system view of only the
  interpreter (read-only), the launcher (read-only) and the working folder (the one writable place);
- `unshare`: util-linux `unshare` with new network and PID namespaces; the file system is the host's, guarded by
  the unprivileged user (when paor runs as root) and the import gate;
- `none`: a plain child process, allowed only when the operator sets `PAOR_CODE_EXECUTION=unsandboxed-network`.

As root the sandbox gets no user namespace: the launcher drops to `SANDBOX_UID` itself, so the process-count
limit applies (the kernel never applies it to root) and the program holds no capabilities.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["bubblewrap", "unshare", "none"]
OPT_IN_VARIABLE = "PAOR_CODE_EXECUTION"
OPT_IN_VALUE = "unsandboxed-network"
SANDBOX_UID = 65534  # nobody
SANDBOX_HOME = "/home/sandbox"
SANDBOX_CODE = "/paor"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding `tools/`
PROBE_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Isolation:
    kind: Kind
    detail: str

    def describe(self) -> str:
        return f"{self.kind} ({self.detail})"


def sandbox_user() -> int | None:
    """The user the launcher becomes: nobody when paor runs as root; None keeps paor's own, unprivileged user."""
    return SANDBOX_UID if os.geteuid() == 0 else None


def unavailable_reason() -> str | None:
    """Why code.execute is off on this machine, or None when it may run."""
    if detect().kind != "none" or os.environ.get(OPT_IN_VARIABLE, "") == OPT_IN_VALUE:
        return None
    return (
        f"no network isolation here ({detect().detail}); install bubblewrap, or set "
        f"{OPT_IN_VARIABLE}={OPT_IN_VALUE} to run model-written code without it"
    )


def status() -> str:
    """One line for `paor doctor`: which isolation code.execute runs under, or why it is off."""
    reason = unavailable_reason()
    if reason is not None:
        return f"off: {reason}"
    found = detect()
    if found.kind == "none":
        return f"on WITHOUT isolation ({OPT_IN_VARIABLE}={OPT_IN_VALUE}): programs can reach the network"
    return f"sandboxed by {found.describe()}"


@functools.cache
def detect() -> Isolation:
    """The strongest isolation that works here; probed once per process."""
    failures = []
    for kind in ("bubblewrap", "unshare"):
        problem = probe(kind)
        if problem is None:
            return Isolation(kind, _DETAILS[kind])
        failures.append(f"{kind}: {problem}")
    return Isolation("none", "; ".join(failures))


def command(kind: Kind, folder: Path, python_args: list[str], info_fd: int | None = None) -> list[str]:
    """The command running `python_args` (arguments after the interpreter) in the sandbox, cwd = the folder.
    bubblewrap writes the PID of the namespace's first process, as JSON, to `info_fd`."""
    python = [sys.executable, *python_args]
    if kind == "bubblewrap":
        info = ["--info-fd", str(info_fd)] if info_fd is not None else []
        return [*_bwrap(folder), *info, "--", *python]
    if kind == "unshare":
        user = ["--user"] if sandbox_user() is None else []
        return [_which("unshare"), *user, "--net", "--pid", "--fork", "--kill-child", "--", *python]
    return python


def launcher_root(kind: Kind) -> str:
    """Where the launcher finds `tools.code` inside the sandbox."""
    return SANDBOX_CODE if kind == "bubblewrap" else str(PACKAGE_ROOT)


_DETAILS = {
    "bubblewrap": "bwrap: no network, own PID namespace, file system limited to Python and the working folder",
    "unshare": "unshare: no network, own PID namespace; host file system guarded by user and import gate",
}


def _bwrap(folder: Path) -> list[str]:
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
    if sandbox_user() is None:
        args.append("--unshare-user")
    args += ["--proc", "/proc", "--dev", "/dev"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64"):
        path = Path("/") / top
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    made: set[str] = set()
    for source in _read_only_paths():
        args += [*_parents(source, made), "--ro-bind", source, source]
    code = f"{SANDBOX_CODE}/tools"
    args += _parents(f"{code}/code", made)
    args += ["--ro-bind", str(PACKAGE_ROOT / "tools" / "__init__.py"), f"{code}/__init__.py"]
    args += ["--ro-bind", str(PACKAGE_ROOT / "tools" / "code"), f"{code}/code"]
    args += [*_parents(SANDBOX_HOME, made), "--bind", str(folder), SANDBOX_HOME, "--chdir", SANDBOX_HOME]
    return args


def _read_only_paths() -> list[str]:
    """/usr, the interpreter's installation and the folders the gate and the allowed libraries live in."""
    candidates = [
        "/usr",
        sys.base_prefix,
        sys.prefix,
        str(Path(sys.executable).resolve().parent.parent),
        *(_site_of(module) for module in ("RestrictedPython", "sympy", "mpmath")),
    ]
    kept: list[str] = []
    for path in sorted({os.path.realpath(p) for p in candidates}, key=len):
        if not any(path == k or path.startswith(k + "/") for k in kept):
            kept.append(path)
    return kept


def _site_of(module: str) -> str:
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


def probe(kind: Kind) -> str | None:
    """None when Python really runs inside `kind` here, else what went wrong."""
    if shutil.which("bwrap" if kind == "bubblewrap" else "unshare") is None:
        return "not installed"
    with tempfile.TemporaryDirectory(prefix="paor-probe-") as folder:
        try:
            done = subprocess.run(
                command(kind, Path(folder), ["-I", "-c", "pass"]),
                cwd=folder,
                env={},
                capture_output=True,
                timeout=PROBE_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return str(exc)
    if done.returncode != 0:
        return _last_line(done.stderr) or f"exit status {done.returncode}"
    return None


def _last_line(data: bytes | str) -> str:
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")
