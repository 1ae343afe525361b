"""The launcher inside the sandbox: read the program from stdin, gate it, lower the limits, drop root, run it.

Runs as `python -I -X utf8 -c BOOT ROOT SPEC` (see `runner`), in the working folder, with an empty environment.
Everything before `exec` is paor's own code; the program runs last, with the limits and the user already set.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import sys
import traceback
from typing import Any

from tools.code import gate
from tools.code.limits import Limits, apply

EXIT_GATE = 3
#: Started by the runner: puts paor's package root on the path, then calls `main`.
BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from tools.code.child import main; main()"


def main() -> None:
    spec: dict[str, Any] = json.loads(sys.argv[2])
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
                    __import__(module)  # as gate.preimport does: before the interpreter may become unreadable
    except gate.GateRefused as exc:
        print(f"import gate: {exc}", file=sys.stderr)
        sys.exit(EXIT_GATE)
    apply(Limits(**spec["limits"]))
    user = spec.get("user")
    if user is not None:  # root outside a user namespace: become an unprivileged user, so NPROC holds
        os.setgroups([])
        os.setgid(user)
        os.setuid(user)
    sys.stdout.flush()
    try:
        exec(code, namespace)
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc(limit=-4)
        sys.exit(1)
