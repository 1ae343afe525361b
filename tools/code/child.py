"""The launcher inside the sandbox: enter the isolation (when it is `unshare`), read the program from stdin, gate
it, lower the limits, give up every privilege, run it.

Runs as `python -I -X utf8 -c BOOT ROOT SPEC` (see `runner`), with an empty environment. Everything before `exec`
is paor's own code; the program runs last, with the limits, the user and `no_new_privs` already set.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import sys
import traceback
from typing import Any

from tools.code import gate, namespaces, privileges, scratch
from tools.code.limits import Limits, apply

EXIT_GATE = 3
#: Started by the runner: puts paor's package root on the path, then calls `main`.
BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from tools.code.child import main; main()"


def main() -> None:
    spec: dict[str, Any] = json.loads(sys.argv[2])
    if spec.get("namespace"):
        namespaces.enter(**spec["namespace"])
    source = sys.stdin.read()
    folder = os.getcwd()
    try:
        if spec["gate"]:
            code, modules = gate.check(source)
            gate.preimport(modules)
            namespace = gate.restricted_globals(folder)
        else:  # tests only: the isolation alone must hold
            code = compile(source, "program.py", "exec")
            namespace = {"__name__": "__main__"}
            for module in gate.imported_modules(ast.parse(source)):
                with contextlib.suppress(ImportError):
                    __import__(module)  # as gate.preimport does
    except gate.GateRefused as exc:
        print(f"import gate: {exc}", file=sys.stderr)
        sys.exit(EXIT_GATE)
    if spec.get("scratch"):  # the isolations: the writable folders on one bounded tmpfs, outputs copied back out
        scratch.enter(spec["scratch"], spec.get("user"))
    apply(Limits(**spec["limits"]))
    privileges.drop(spec.get("user"))  # root outside a user namespace becomes the run's user, so NPROC holds
    sys.stdout.flush()
    try:
        exec(code, namespace)
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc(limit=-4)
        sys.exit(1)
