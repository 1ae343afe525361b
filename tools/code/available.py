"""Which isolation code.execute runs under on this machine: each kind probed once per process by really running a
program in it (tools/code/probe.py), the first that keeps the promises of tools/code/isolation.py taken."""

from __future__ import annotations

import functools
import os
import shutil

from tools.code.isolation import KINDS, OPT_IN_VALUE, OPT_IN_VARIABLE, Isolation, Kind
from tools.code.probe import run_probe

#: What each isolation promises, as `paor doctor` says it.
DETAILS = {
    "bubblewrap": "bwrap: no network; own PID, mount and IPC namespaces; only the interpreter and the working folder "
    "visible; private /tmp and /dev/shm; no_new_privs",
    "unshare": "kernel namespaces entered by paor's launcher: no network; own PID, mount and IPC namespaces; only the "
    "interpreter and the working folder visible; private /tmp and /dev/shm; no_new_privs",
}


def unavailable_reason() -> str | None:
    """Why code.execute is off on this machine, or None when it may run."""
    if detect().kind != "none" or os.environ.get(OPT_IN_VARIABLE, "") == OPT_IN_VALUE:
        return None
    return (
        f"no isolation keeps the sandbox's promises here ({detect().detail}); install bubblewrap, or set "
        f"{OPT_IN_VARIABLE}={OPT_IN_VALUE} to run model-written code without any isolation"
    )


def status() -> str:
    """One line for `paor doctor`: which isolation code.execute runs under, or why it is off."""
    reason = unavailable_reason()
    if reason is not None:
        return f"off: {reason}"
    found = detect()
    if found.kind == "none":
        return f"on WITHOUT isolation ({OPT_IN_VARIABLE}={OPT_IN_VALUE}): programs see the host and the network"
    return f"sandboxed by {found.describe()}"


@functools.cache
def detect() -> Isolation:
    """The first isolation that keeps its promises here; probed once per process."""
    failures = []
    for kind in KINDS:
        problem = probe(kind)
        if problem is None:
            return Isolation(kind, DETAILS[kind])
        failures.append(f"{kind}: {problem}")
    return Isolation("none", "; ".join(failures))


@functools.cache
def probe(kind: Kind) -> str | None:
    """None when a program really runs inside `kind` here and can read the interpreter, else what went wrong."""
    if kind == "bubblewrap" and shutil.which("bwrap") is None:
        return "bwrap is not installed"
    return run_probe(kind)
