"""The check behind `available.probe`: a program run inside the isolation, as the sandbox's user, that walks the
interpreter's files the way its imports will and names the first it cannot read. Links leading out of the view
(Debian's sitecustomize.py → /etc) are passed over: outside the view, they are not the program's to import.

A sandbox that starts but cannot read the standard library or sympy fails later, in the middle of a program
("No module named 'sympy.sets.setexpr'"); this finds it once, up front, and says what to change.
"""

from __future__ import annotations

import os

from tools.code import isolation
from tools.code.limits import Limits
from tools.code.runner import run_program

LIMITS = Limits(cpu_s=20, wall_s=30.0, memory_mb=512, file_mb=1, folder_mb=1)
#: Folders no import of an allowed module reads.
SKIPPED = ("test", "tests", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "site-packages", "__pycache__")
PROGRAM = """\
import os, sys
def unreadable(roots, skipped):
    for root in roots:
        failed = []
        for folder, dirs, files in os.walk(root, onerror=failed.append):
            dirs[:] = [d for d in dirs if d not in skipped]
            for name in files:
                path = os.path.join(folder, name)
                if name.endswith(('.py', '.so')) and os.path.exists(path) and not os.access(path, os.R_OK):
                    return path
            if failed:
                return failed[0].filename
        if failed:
            return failed[0].filename
    return None
print(unreadable({roots!r}, {skipped!r}) or 'readable')
"""


def run_probe(kind: isolation.Kind) -> str | None:
    """None when a program runs under `kind` and can read every file the allowed imports need."""
    roots = isolation.readable_paths()
    try:
        result = run_program(PROGRAM.format(roots=roots, skipped=SKIPPED), limits=LIMITS, kind=kind, gate=False)
    except (OSError, ValueError) as exc:
        return str(exc) or type(exc).__name__
    if not result.ok:
        return result.reason
    found = result.stdout.decode("utf-8", errors="replace").strip()
    if found == "readable":
        return None
    who = "its unprivileged user" if os.geteuid() == 0 else f"its user (uid {os.getuid()})"
    top = next((root for root in roots if found.startswith(root)), found)
    return f"{who} cannot read {found}; make the interpreter's files readable to it (chmod -R o+rX {top})"
