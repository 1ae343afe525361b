"""Fresh-install guard: every module of paor imports, and `paor doctor` passes against a loopback model.

`.ci/run` runs this file in a second venv installed *without* the lock (`python tests/support/fresh_install.py`
from outside the repo, so the installed copy is what imports): what a new user's resolver picks today. An upstream
release that breaks an import fails CI the day it appears, naming the module, the error and the package that
raised it. `tests/unit/test_imports.py` runs the same import walk in the locked venv.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import traceback
from pathlib import Path

PACKAGES = ("core", "graph", "nodes", "tools", "prompts", "cli", "server")
#: tests/support/deadlines.PROCESS_S: this script runs outside the repository, where `tests` cannot be imported.
PROCESS_S = 600.0


def module_names() -> list[str]:
    """Every module of paor's packages (`__main__` entry points aside: importing one runs it)."""
    names: list[str] = []
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        names.append(package_name)
        found = pkgutil.walk_packages(package.__path__, prefix=f"{package_name}.")
        names += [info.name for info in found if not info.name.endswith(".__main__")]
    return names


def import_failures() -> list[str]:
    """One line per module that cannot be imported: the module, the error, and the file that raised it."""
    failures: list[str] = []
    for name in module_names():
        try:
            importlib.import_module(name)
        except Exception as exc:  # report every failure, not just the first
            origin = traceback.extract_tb(exc.__traceback__)[-1].filename
            failures.append(f"{name}: {type(exc).__name__}: {exc} (raised in {_site_relative(origin)})")
    return failures


def _site_relative(path: str) -> str:
    """`justext/core.py` rather than the whole venv path: the first part names the package to blame."""
    marker = f"{os.sep}site-packages{os.sep}"
    return path.split(marker, 1)[1] if marker in path else path


def doctor_against_loopback_model() -> tuple[int, str]:
    """`paor doctor` with the scripted OpenAI-compatible server on loopback as the model endpoint."""
    from scripted_llm import ScriptedLLM  # this file's folder is on sys.path when run as a script

    paor = Path(sys.executable).with_name("paor")
    with ScriptedLLM() as llm:
        env = {**os.environ, "OPENAI_BASE_URL": llm.base_url, "PAOR_MODEL": "scripted", "OPENAI_API_KEY": "sk-smoke"}
        done = subprocess.run([str(paor), "doctor"], env=env, capture_output=True, text=True, timeout=PROCESS_S)
    return done.returncode, done.stdout + done.stderr


def main() -> int:
    failures = import_failures()
    for failure in failures:
        print(f"✗ import {failure}")
    code, report = doctor_against_loopback_model()
    print(report)
    if code != 0:
        print(f"✗ paor doctor exited {code}")
    ok = not failures and code == 0
    print(f"fresh install: {len(module_names())} modules, {len(failures)} import failures, doctor exit {code}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
